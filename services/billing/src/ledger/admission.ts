/**
 * Admission of one request (admission-scripts.ts, `admitScript`): the key's bucket, its balance,
 * its spend cap and the debit, decided together in one script.
 */
import { type AdmitReply, calendarMonthOf, type KeyBucket, type MonthSpend } from "@rda/contracts";
import { admitScript } from "./admission-scripts.ts";
import {
  type LedgerContext,
  MARKER_TTL_SECONDS,
  scriptReply,
  USAGE_TTL_SECONDS,
  usagePrefix,
  utcDay,
} from "./context.ts";
import { pendingMember } from "./pending-debits.ts";

export interface Admission {
  readonly keyId: string;
  /**
   * The hash of the secret presented: a rotated key's old secret is an unknown key. Empty for a
   * caller bound to the key id (an OAuth grant), which a rotation leaves alone.
   */
  readonly keyHash: string;
  readonly requestId: string;
  /** The operation charged, for the usage counters. */
  readonly operation: string;
  readonly credits: number;
  /** Tokens of the key's bucket to spend. */
  readonly tokens: number;
  /** How long the debit may stay pending before billing voids it. */
  readonly pendingMs: number;
  /**
   * When billing stops waiting for the answer (epoch ms on Redis' clock, context.ts): if Redis
   * runs the script only after it, nothing is decided and nothing taken.
   */
  readonly deadline: number;
}

/**
 * The script ran only after its deadline (Redis was stalled): it decided and took nothing, and
 * billing has already answered that it could not reach its store.
 */
export type LateAdmission = { readonly outcome: "expired" };

/**
 * The places the upstream reserve once held in the script's arguments, left empty so the debit's
 * steps keep their numbers; its key places repeat the key's record (a key a script declares must be
 * one its Redis user may touch).
 */
const UNUSED_SLOT = "";

/** The admission script's reply as read, with the month it counted spend in. */
export interface AdmissionRun {
  readonly reply: [outcome: string, ...figures: number[]];
  readonly month: string;
}

/**
 * Runs the one debit (admission-scripts.ts, `admitScript`) for a request or for work: no tokens for
 * work, which has no bucket to spend.
 */
export async function runAdmission(context: LedgerContext, admission: Admission): Promise<AdmissionRun> {
  const { keys } = context;
  const { keyId, requestId } = admission;
  const at = context.now();
  const reply = await admitScript.run(
    context.redis,
    [
      keys.keyRecord(keyId),
      keys.journal(keyId),
      keys.debitMarker(keyId, requestId),
      keys.keyRateBucket(keyId),
      keys.keyRecord(keyId),
      keys.pendingDebits,
      keys.keyRecord(keyId),
      keys.monthlySpend(keyId),
    ],
    [
      requestId,
      admission.keyHash,
      admission.operation,
      admission.credits,
      admission.tokens,
      UNUSED_SLOT,
      UNUSED_SLOT,
      admission.pendingMs,
      MARKER_TTL_SECONDS.debit,
      usagePrefix(context, keyId),
      USAGE_TTL_SECONDS,
      at,
      utcDay(at),
      pendingMember(keyId, requestId),
      Math.floor(admission.deadline),
      calendarMonthOf(at),
    ],
  );
  return { reply: scriptReply(reply), month: calendarMonthOf(at) };
}

export async function decideAdmission(
  context: LedgerContext,
  admission: Admission,
): Promise<AdmitReply | LateAdmission> {
  const { reply, month } = await runAdmission(context, admission);
  return admitReply(reply, month);
}

function admitReply(
  [
    outcome,
    balance = 0,
    waitMs = 0,
    qps = 1,
    burst = 1,
    remaining = 0,
    reset = 0,
    cap,
    spent,
    lowLine,
    lowRound,
  ]: [string, ...number[]],
  month: string,
): AdmitReply | LateAdmission {
  const bucket: KeyBucket = { qps, burst, remaining, reset_seconds: reset };
  // Absent only from a refusal made before the cap's step (rate limited, insufficient).
  const monthSpend: MonthSpend | undefined =
    spent === undefined || spent < 0
      ? undefined
      : { month, spent, cap: cap === undefined || cap < 0 ? null : cap };
  switch (outcome) {
    case "already_debited":
    case "already_ended":
    // A retried admission is answered as the first was, with nothing taken again.
    case "admitted":
      if (!monthSpend || lowLine === undefined || lowRound === undefined)
        throw new Error("an admission came without its figures");
      return {
        outcome: "admitted",
        balance,
        bucket,
        month_spend: monthSpend,
        low_balance_threshold: lowLine,
        low_balance_round: lowRound,
      };
    case "spend_cap_reached":
      if (!monthSpend) throw new Error("a cap refusal came without the month's spend");
      return { outcome, balance, bucket, month_spend: monthSpend };
    case "insufficient":
      if (lowRound === undefined) throw new Error("a refusal for credits came without the key's round");
      return { outcome, balance, bucket, low_balance_round: lowRound };
    case "rate_limited":
      return { outcome, retry_after_ms: waitMs, bucket };
    case "unknown_key":
    case "revoked":
      return { outcome };
    case "expired":
      return { outcome };
    default:
      throw new Error(`unexpected admission outcome '${outcome}'`);
  }
}
