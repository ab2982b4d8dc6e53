/**
 * Request ids. The id used for billing and logs is always generated here (unique, so a caller can
 * never replay or collide with a ledger entry); a caller's `x-request-id` is only echoed and logged,
 * and only when it is safe to put in a header and a log line (distrust the wire).
 */
import { randomUUID } from "node:crypto";
import { requestIdSchema } from "@rda/contracts";

export function generateRequestId(): string {
  return randomUUID();
}

/** The caller's id when well formed, else ours. */
export function correlationId(header: string | string[] | undefined, generated: string): string {
  if (typeof header !== "string") return generated;
  return requestIdSchema.safeParse(header).success ? header : generated;
}
