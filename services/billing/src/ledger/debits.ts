/** Debits (the hot path) and refunds: one atomic script each, keyed by the request id. */
import type { DebitReply, RefundMessage } from "@rda/contracts";
import { type LedgerContext, MARKER_TTL_SECONDS, scriptReply } from "./context.ts";
import { debitScript, refundScript } from "./scripts.ts";

export type RefundResult = { outcome: "refunded"; balance: number } | { outcome: "ignored" };

function requestKeys(context: LedgerContext, keyId: string, requestId: string): string[] {
  const { keys } = context;
  return [keys.keyRecord(keyId), keys.journal(keyId), keys.debitMarker(keyId, requestId)];
}

export async function debit(context: LedgerContext, keyId: string, requestId: string): Promise<DebitReply> {
  const reply = await debitScript.run(context.redis, requestKeys(context, keyId, requestId), [
    requestId,
    context.now(),
    MARKER_TTL_SECONDS.debit,
  ]);
  const [outcome, balance = 0] = scriptReply(reply);
  if (outcome === "debited" || outcome === "insufficient") return { outcome, balance };
  if (outcome === "unknown_key" || outcome === "revoked") return { outcome };
  throw new Error(`unexpected debit outcome '${outcome}'`);
}

export async function refund(context: LedgerContext, message: RefundMessage): Promise<RefundResult> {
  const { key_id: keyId, request_id: requestId } = message;
  const reply = await refundScript.run(context.redis, requestKeys(context, keyId, requestId), [
    requestId,
    context.now(),
    MARKER_TTL_SECONDS.debit,
  ]);
  const [outcome, balance = 0] = scriptReply(reply);
  return outcome === "refunded" ? { outcome, balance } : { outcome: "ignored" };
}
