/**
 * The end of a pending debit (admission-scripts.ts): settled when the gateway says its answer reached
 * the client, refunded when the request failed or the client left, voided (journaled as a refund)
 * when its deadline passed first — a gateway that dies mid-request thus costs its callers nothing.
 * Each ends exactly once: only a pending debit can move.
 */
import type { DebitEnd, RefundMessage } from "@rda/contracts";
import { dueDebitsScript, refundScript, settleScript } from "./admission-scripts.ts";
import {
  type LedgerContext,
  MARKER_TTL_SECONDS,
  scriptReply,
  USAGE_TTL_SECONDS,
  usagePrefix,
} from "./context.ts";

/** A pending debit's member of the pending index; `|` appears in neither a key id nor a request id. */
export function pendingMember(keyId: string, requestId: string): string {
  return `${keyId}|${requestId}`;
}

export interface DebitId {
  readonly key_id: string;
  readonly request_id: string;
}

/**
 * Settles many debits in one pipelined round trip; `ends` says how each ended (DEBIT_ENDS), in order.
 */
export async function settle(context: LedgerContext, debits: readonly DebitId[]) {
  // A settlement is idempotent, so runMany may send the batch again after Redis lost the script.
  const replies = await settleScript.runMany(
    context.redis,
    debits.map(({ key_id, request_id }) => ({
      keys: [context.keys.debitMarker(key_id, request_id), context.keys.pendingDebits],
      args: [pendingMember(key_id, request_id)],
    })),
  );
  const ends = replies.map((reply) => {
    if (!reply.ok) throw reply.error;
    return reply.value as DebitEnd;
  });
  const settled = ends.filter((end) => end === "settled").length;
  return { settled, ignored: debits.length - settled, ends };
}

export type RefundEnd = "refunded" | "voided";

/** What a refund did (DEBIT_ENDS: `refunded` or `voided` now, else how an earlier end left it). */
export interface RefundOutcome {
  readonly outcome: DebitEnd;
  /** The key's balance afterwards; null when the key has no record. */
  readonly balance: number | null;
  /** Whether this call ended the debit (a void racing another replica's finds it voided already). */
  readonly endedNow: boolean;
}

export async function refund(
  context: LedgerContext,
  message: RefundMessage,
  end: RefundEnd = "refunded",
): Promise<RefundOutcome> {
  const { key_id: keyId, request_id: requestId } = message;
  const { keys } = context;
  const reply = await refundScript.run(
    context.redis,
    [
      keys.keyRecord(keyId),
      keys.journal(keyId),
      keys.debitMarker(keyId, requestId),
      keys.pendingDebits,
      keys.monthlySpend(keyId),
    ],
    [
      requestId,
      context.now(),
      MARKER_TTL_SECONDS.debit,
      usagePrefix(context, keyId),
      USAGE_TTL_SECONDS,
      pendingMember(keyId, requestId),
      end,
    ],
  );
  const [outcome, balance = -1, now = 0] = scriptReply(reply);
  return { outcome: outcome as DebitEnd, balance: balance < 0 ? null : balance, endedNow: now === 1 };
}

/** Voids up to `limit` pending debits whose deadline passed; returns how many it voided. */
export async function voidDueDebits(context: LedgerContext, limit: number): Promise<number> {
  const due = (await dueDebitsScript.run(context.redis, [context.keys.pendingDebits], [limit])) as string[];
  let voided = 0;
  for (const member of due) {
    const [keyId = "", requestId = ""] = member.split("|");
    const reply = await refund(context, { key_id: keyId, request_id: requestId, reason: "voided" }, "voided");
    if (reply.endedNow) voided += 1;
  }
  return voided;
}
