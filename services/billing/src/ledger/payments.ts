/**
 * Card payments in the ledger: applying a paid payment (credits priced from the amount actually
 * paid), taking back what refunds and disputes return, and reading a key's or an account's payment
 * history. Every change runs in one script in the key's slot (payment-scripts.ts).
 */
import {
  type ApplyPaymentReply,
  type ApplyPaymentRequest,
  creditsForPaidCents,
  type Payment,
  type ReversePaymentReply,
  type ReversePaymentRequest,
} from "@rda/contracts";
import { type LedgerContext, scriptReply, USAGE_TTL_SECONDS, utcDay } from "./context.ts";
import { applyPaymentScript, reversePaymentScript } from "./payment-scripts.ts";

/** The most payments one history shows, newest first. */
const HISTORY_LIMIT = 200;

const REVERSAL_FIELD = { refund: "refunded_cents", dispute: "disputed_cents" } as const;

export async function applyPayment(
  context: LedgerContext,
  request: ApplyPaymentRequest,
): Promise<Exclude<ApplyPaymentReply, { outcome: "unverified" }>> {
  const { keys } = context;
  const { key_id: keyId, payment_id: paymentId } = request;
  const now = context.now();
  const credits = creditsForPaidCents(request.amount_cents);
  const reply = await applyPaymentScript.run(
    context.redis,
    [
      keys.keyRecord(keyId),
      keys.journal(keyId),
      keys.payment(keyId, paymentId),
      keys.keyPayments(keyId),
      keys.usageDay(keyId, utcDay(now)),
    ],
    [
      paymentId,
      request.account_id,
      request.checkout_session_id,
      request.amount_cents,
      credits,
      request.currency,
      request.paid_at * 1000,
      request.receipt_url ?? "",
      now,
      USAGE_TTL_SECONDS,
      keyId,
    ],
  );
  const [outcome, added = 0, removed = 0, balance = 0] = scriptReply(reply);
  if (outcome === "not_found") return { outcome };
  if (outcome === "applied" || outcome === "already_applied")
    return { outcome, credits: added, credits_removed: removed, balance };
  throw new Error(`unexpected payment outcome '${outcome}'`);
}

export async function reversePayment(
  context: LedgerContext,
  request: ReversePaymentRequest,
): Promise<Exclude<ReversePaymentReply, { outcome: "unverified" }>> {
  const { keys } = context;
  const { key_id: keyId, payment_id: paymentId } = request;
  const reply = await reversePaymentScript.run(
    context.redis,
    [keys.keyRecord(keyId), keys.journal(keyId), keys.payment(keyId, paymentId), keys.keyPayments(keyId)],
    [
      paymentId,
      request.account_id,
      REVERSAL_FIELD[request.kind],
      request.amount_cents,
      context.now(),
      keyId,
      request.receipt_url ?? "",
    ],
  );
  const [outcome, removed = 0, balance = 0, removedThen, balanceThen] = scriptReply(reply);
  if (outcome === "not_found") return { outcome };
  if (outcome === "unchanged" && removedThen !== undefined && balanceThen !== undefined)
    return {
      outcome,
      credits_removed: 0,
      balance,
      applied: { credits_removed: removedThen, balance: balanceThen },
    };
  if (outcome === "reversed" || outcome === "unchanged" || outcome === "recorded")
    return { outcome, credits_removed: removed, balance };
  throw new Error(`unexpected payment reversal outcome '${outcome}'`);
}

/** The payments of these keys, newest first (by when each was first seen). */
export async function listPayments(context: LedgerContext, keyIds: readonly string[]): Promise<Payment[]> {
  const { redis, keys } = context;
  const listing = redis.pipeline();
  for (const keyId of keyIds) listing.zrevrange(keys.keyPayments(keyId), 0, HISTORY_LIMIT - 1, "WITHSCORES");
  const lists = (await listing.exec()) ?? [];
  const seen: { keyId: string; paymentId: string; at: number }[] = [];
  keyIds.forEach((keyId, index) => {
    const [error, flat] = lists[index] ?? [];
    if (error) throw error;
    const pairs = flat as string[];
    for (let i = 0; i + 1 < pairs.length; i += 2)
      seen.push({ keyId, paymentId: pairs[i]!, at: Number(pairs[i + 1]) });
  });
  const newest = seen.sort((a, b) => b.at - a.at).slice(0, HISTORY_LIMIT);
  const reading = redis.pipeline();
  for (const { keyId, paymentId } of newest) reading.hgetall(keys.payment(keyId, paymentId));
  const records = (await reading.exec()) ?? [];
  return newest.map(({ keyId, paymentId }, index) => {
    const [error, fields] = records[index] ?? [];
    if (error) throw error;
    return paymentOf(keyId, paymentId, fields as Record<string, string>);
  });
}

function paymentOf(keyId: string, paymentId: string, fields: Record<string, string>): Payment {
  const number = (name: string) => Number(fields[name] ?? 0);
  const paidAt = fields.paid_at === undefined ? null : new Date(Number(fields.paid_at)).toISOString();
  const payment = {
    payment_id: paymentId,
    key_id: keyId,
    account_id: fields.account_id ?? "",
    checkout_session_id: fields.session_id ?? "",
    amount_cents: number("amount_cents"),
    currency: fields.currency ?? "usd",
    credits: number("credits"),
    refunded_cents: number("refunded_cents"),
    disputed_cents: number("disputed_cents"),
    credits_removed: number("credits_removed"),
    paid_at: paidAt,
    receipt_url: fields.receipt_url ?? null,
  };
  return { ...payment, status: statusOf(payment, fields.credits !== undefined) };
}

function statusOf(
  payment: Pick<Payment, "amount_cents" | "refunded_cents" | "disputed_cents">,
  applied: boolean,
): Payment["status"] {
  if (!applied) return "pending";
  if (payment.disputed_cents > 0) return "disputed";
  if (payment.refunded_cents >= payment.amount_cents) return "refunded";
  return payment.refunded_cents > 0 ? "partially_refunded" : "paid";
}
