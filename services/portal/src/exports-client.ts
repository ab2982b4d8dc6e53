/**
 * The portal's side of the exports service (EXPORTS_RPC), for the exports pages of a key.
 * Every call names the key; the pages ask only after billing has said the key belongs to the
 * signed-in account (routes/exports.ts), so an account only ever sees its own keys' exports.
 */
import { EXPORTS_RPC, type ExportsRpc, type Subjects } from "@rda/contracts";
import { type NatsConnection, type RpcCaller, rpcCaller } from "@rda/service-kit";

/** A quote samples the upstream: a few pages, each within the adapter timeout (as the gateway waits). */
const COMMAND_TIMEOUT_MS = 30_000;

export type PortalExports = RpcCaller<ExportsRpc>;

export function createPortalExports(deps: { nats: NatsConnection; subjects: Subjects }): PortalExports {
  return rpcCaller(deps.nats, EXPORTS_RPC, deps.subjects.exports.commands, COMMAND_TIMEOUT_MS);
}
