/**
 * Asking a service through its table of calls (rpc.ts in @rda/contracts): `rpcCaller` pairs each
 * entry's subject with its reply schema, so the caller cannot pair them differently from the
 * serving side. Billing (`billingCaller`), monitors and exports are asked this way. Failures are
 * `NatsRequestFailure` values, as with `requestJson`.
 */
import {
  BILLING_RPC,
  type BillingRpcName,
  type Result,
  type RpcReply,
  type RpcRequest,
  type RpcTable,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "./nats.ts";

export type RpcAnswer<T extends RpcTable, N extends keyof T> = Promise<
  Result<RpcReply<T, N>, NatsRequestFailure>
>;

export interface RpcCaller<T extends RpcTable> {
  /** Sends one call; `timeoutMs` overrides the caller's default (a slow `verifyLedger`, a quote). */
  call<N extends keyof T & string>(name: N, request: RpcRequest<T, N>, timeoutMs?: number): RpcAnswer<T, N>;
}

export function rpcCaller<T extends RpcTable>(
  nats: NatsConnection,
  table: T,
  subjects: { readonly [N in keyof T]: string },
  timeoutMs: number,
): RpcCaller<T> {
  return {
    call(name, request, timeout = timeoutMs) {
      const { reply } = table[name] as T[typeof name];
      return requestJson(nats, subjects[name], request, reply, timeout) as RpcAnswer<T, typeof name>;
    },
  };
}

export type BillingAnswer<N extends BillingRpcName> = RpcAnswer<typeof BILLING_RPC, N>;
export type BillingCaller = RpcCaller<typeof BILLING_RPC>;

export function billingCaller(nats: NatsConnection, subjects: Subjects, timeoutMs: number): BillingCaller {
  return rpcCaller(nats, BILLING_RPC, subjects.billing, timeoutMs);
}
