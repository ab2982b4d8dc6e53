/**
 * The per-page debit of an export job (`billing.exports.debit_page`): 1 credit for one upstream page,
 * journaled like a request's debit. The page's id (job, page, attempt) is the debit's request id, so
 * a worker that retries a page after a crash is charged once: a marker that already exists answers
 * `already_debited` (still charged) or `already_ended` (that attempt was refunded) and charges
 * nothing. The marker is a pending debit record of 1 credit, written with the one codec
 * (lua-helpers.ts, DEBIT_RECORD), so `billing.settle` ends it and `billing.refund` gives it back
 * exactly once (and the month's spend with it), as for a failed request.
 * There is no pending deadline: the worker records the attempt before it asks, and refunds it
 * itself when the job ends without fetching the page.
 * A page counts towards the key's monthly spend cap like any request (admission-scripts.ts): one
 * past the cap is refused, uncharged, and the job pauses until the cap is raised or the month turns.
 * A debit replies with the same figures as an admission (the month's spend, the low-balance line),
 * so the lines it crosses are told like a request's (notice-events.ts).
 */
import { calendarMonthOf, type ExportPageDebitReply } from "@rda/contracts";
import { luaScript } from "@rda/service-kit";
import {
  type LedgerContext,
  MARKER_TTL_SECONDS,
  scriptReply,
  USAGE_TTL_SECONDS,
  usagePrefix,
  utcDay,
} from "./context.ts";
import type { DebitFigures } from "./low-balance.ts";
import { DEBIT_RECORD, JOURNAL_AND_USAGE, LOW_BALANCE_LINE } from "./lua-helpers.ts";

/** The operation an export page is counted under in the key's usage. */
export const EXPORT_PAGE_OPERATION = "exportPage";
/**
 * A monitor's webhook batch is the same kind of debit (1 credit, keyed by its delivery round,
 * settled on a 2xx, refunded when the batch failed for good), counted under its own operation.
 */
export const MONITOR_BATCH_OPERATION = "monitorWebhookBatch";

/**
 * KEYS: record, journal, debit marker, monthly spend. ARGV: debit id, at (ms), marker ttl (s), usage
 * key prefix, usage ttl (s), day, operation, month (YYYY-MM). Replies {outcome, balance}, and when
 * debited also {…, cap (-1: none), month's spend, low-balance line, its round}.
 */
export const exportPageDebitScript = luaScript(`${JOURNAL_AND_USAGE}${DEBIT_RECORD}${LOW_BALANCE_LINE}
local record = redis.call('HMGET', KEYS[1], 'balance', 'revoked')
if not record[1] then return {'unknown_key', -1} end
local balance = tonumber(record[1])
local prior = read_debit(KEYS[3])
if prior then
  if prior.state == 'pending' or prior.state == 'settled' then return {'already_debited', balance} end
  return {'already_ended', balance}
end
if record[2] == '1' then return {'revoked', balance} end
if balance < 1 then return {'insufficient', balance} end
local cap = tonumber(redis.call('HGET', KEYS[1], 'monthly_cap') or '') or -1
if cap >= 0 and tonumber(redis.call('HGET', KEYS[4], ARGV[8]) or '0') + 1 > cap then
  return {'spend_cap_reached', balance}
end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -1)
local spent = redis.call('HINCRBY', KEYS[4], ARGV[8], 1)
redis.call('HSET', KEYS[1], 'last_used_at', ARGV[2])
journal('debit', -1, balance, ARGV[1], ARGV[2])
count(ARGV[4] .. ARGV[6], 'charged:' .. ARGV[7], 1, ARGV[5])
write_debit(KEYS[3], { state = 'pending', balance = balance, operation = ARGV[7], day = ARGV[6], credits = 1 },
  ARGV[3])
return {'debited', balance, cap, spent, low_balance_line(), low_balance_round()}
`);

export const EXPORT_PAGE_SCRIPTS = [exportPageDebitScript];

/** The reply, and for a debit taken now its figures (for the lines it crossed). */
export interface PageDebit {
  readonly reply: ExportPageDebitReply;
  readonly figures?: DebitFigures;
}

export async function debitExportPage(
  context: LedgerContext,
  request: { keyId: string; debitId: string; operation?: string },
): Promise<PageDebit> {
  const { keys } = context;
  const at = context.now();
  const month = calendarMonthOf(at);
  const reply = await exportPageDebitScript.run(
    context.redis,
    [
      keys.keyRecord(request.keyId),
      keys.journal(request.keyId),
      keys.debitMarker(request.keyId, request.debitId),
      keys.monthlySpend(request.keyId),
    ],
    [
      request.debitId,
      at,
      MARKER_TTL_SECONDS.debit,
      usagePrefix(context, request.keyId),
      USAGE_TTL_SECONDS,
      utcDay(at),
      request.operation ?? EXPORT_PAGE_OPERATION,
      month,
    ],
  );
  const [outcome, balance = 0, cap = -1, spent, line, round] = scriptReply(reply);
  const answer = { outcome: outcome as ExportPageDebitReply["outcome"], balance };
  if (outcome !== "debited" || spent === undefined) return { reply: answer };
  return {
    reply: answer,
    figures: {
      balance,
      month_spend: { month, spent, cap: cap < 0 ? null : cap },
      low_balance_threshold: line,
      low_balance_round: round,
    },
  };
}
