/**
 * The lines a debit can cross that a key's account is told about (the portal sends the notices):
 * its low-balance threshold, and 80 % and 100 % of its monthly spend cap. Every debit (a request's
 * admission, a work debit) hands its figures to `crossingsOf`. (A refused debit's pause is told by
 * whoever paused: service-kit work-billing.ts.) Debits are serial in the ledger, so exactly one crosses each line on its way down
 * (or up, for spend); the event names that crossing, and the portal sends it once. The low-balance
 * line's crossing is named by its round (the key's count of top-ups): once per crossing, re-armed
 * by a top-up.
 * Published into the notice stream (JetStream, kept until a portal has sent it) after the answer is
 * decided, never in its way; only keys of a portal account have someone to tell.
 */
import type { NoticeEvent, Subjects } from "@rda/contracts";
import { type Logger, type NatsConnection, publishNoticeEvent } from "@rda/service-kit";
import type { DebitFigures, LedgerContext } from "./ledger/index.ts";

export interface NoticeEventDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly context: LedgerContext;
  readonly logger: Logger;
}

export type Crossing = Omit<NoticeEvent, "account_id" | "key_id">;

/** The lines that the debit of `credits`, which left these figures, crossed. */
export function crossingsOf(keyId: string, credits: number, reply: DebitFigures): Crossing[] {
  if (credits === 0) return [];
  const crossings: Crossing[] = [];
  const line = reply.low_balance_threshold;
  if (line !== undefined && reply.balance < line && reply.balance + credits >= line)
    crossings.push({
      kind: "balance_low",
      crossing: `${keyId}:low:${line}:${reply.low_balance_round ?? 0}`,
      balance: reply.balance,
      threshold: line,
    });
  const spend = reply.month_spend;
  if (spend && spend.cap !== null) {
    const before = spend.spent - credits;
    for (const [kind, at] of [
      ["spend_cap_80", Math.ceil(spend.cap * 0.8)],
      ["spend_cap_100", spend.cap],
    ] as const) {
      if (before < at && spend.spent >= at)
        crossings.push({
          kind,
          crossing: `${keyId}:${spend.month}:${spend.cap}:${kind}`,
          balance: reply.balance,
          month_spend: spend,
        });
    }
  }
  return crossings;
}

/** Publishes the crossings of one debit; a failure is logged, the debit stands. */
export function publishCrossings(deps: NoticeEventDeps, keyId: string, crossings: Crossing[]): void {
  if (crossings.length === 0) return;
  void (async () => {
    const accountId = await deps.context.redis.hget(deps.context.keys.keyRecord(keyId), "account_id");
    if (!accountId) return;
    for (const crossing of crossings) {
      const event: NoticeEvent = { ...crossing, key_id: keyId, account_id: accountId };
      const published = await publishNoticeEvent(deps.nats, deps.subjects, event);
      if (!published.ok)
        deps.logger.warn({ key_id: keyId, err: published.error }, "notice event not published");
    }
  })().catch((error: unknown) =>
    deps.logger.warn({ key_id: keyId, err: String(error) }, "notice event not published"),
  );
}
