/**
 * The portal's side of the exports service (`exports.commands`), for the exports pages of a key.
 * Every command names the key; the pages ask only after billing has said the key belongs to the
 * signed-in account (routes/exports.ts), so an account only ever sees its own keys' exports.
 */
import {
  type ExportJobCommand,
  type ExportList,
  type ExportReply,
  exportListSchema,
  exportReplySchema,
  type Result,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "@rda/service-kit";

/** A quote samples the upstream: a few pages, each within the adapter timeout (as the gateway waits). */
const COMMAND_TIMEOUT_MS = 30_000;

type Answer<T> = Promise<Result<T, NatsRequestFailure>>;

export interface PortalExports {
  list(keyId: string): Answer<ExportList>;
  command(command: ExportJobCommand): Answer<ExportReply>;
}

export function createPortalExports(deps: { nats: NatsConnection; subjects: Subjects }): PortalExports {
  const subject = deps.subjects.exports.commands;
  return {
    list: (keyId) =>
      requestJson(
        deps.nats,
        subject,
        { action: "list", key_id: keyId },
        exportListSchema,
        COMMAND_TIMEOUT_MS,
      ),
    command: (command) => requestJson(deps.nats, subject, command, exportReplySchema, COMMAND_TIMEOUT_MS),
  };
}
