/**
 * The per-page debit of an export job (`billing.exports.debit_page`): 1 credit for one upstream page,
 * journaled like a request's debit. The page's id (job, page, attempt) is the debit's request id, so
 * a worker that retries a page after a crash is charged once: a marker that already exists answers
 * `already_debited` (still charged) or `already_ended` (that attempt was refunded) and charges
 * nothing. The marker has the request debit's shape (`debited:<balance>:<operation>:<day>:1`), so
 * `billing.settle` ends it and `billing.refund` gives it back exactly once, as for a failed request.
 * There is no pending deadline: the worker records the attempt before it asks, and refunds it
 * itself when the job ends without fetching the page.
 */
import type { ExportPageDebitReply } from "@rda/contracts";
import {
  type LedgerContext,
  MARKER_TTL_SECONDS,
  scriptReply,
  USAGE_TTL_SECONDS,
  usagePrefix,
  utcDay,
} from "./context.ts";
import { JOURNAL_AND_USAGE } from "./lua-helpers.ts";
import { luaScript } from "./lua-script.ts";

/** The operation an export page is counted under in the key's usage. */
export const EXPORT_PAGE_OPERATION = "exportPage";

/**
 * KEYS: record, journal, debit marker. ARGV: debit id, at (ms), marker ttl (s), usage key prefix,
 * usage ttl (s), day, operation. Replies {outcome, balance}.
 */
export const exportPageDebitScript = luaScript(`${JOURNAL_AND_USAGE}
local record = redis.call('HMGET', KEYS[1], 'balance', 'revoked')
if not record[1] then return {'unknown_key', -1} end
local balance = tonumber(record[1])
local prior = redis.call('GET', KEYS[3])
if prior then
  local state = string.match(prior, '^(%a+):')
  if state == 'debited' or state == 'pending' or state == 'settled' then return {'already_debited', balance} end
  return {'already_ended', balance}
end
if record[2] == '1' then return {'revoked', balance} end
if balance < 1 then return {'insufficient', balance} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -1)
redis.call('HSET', KEYS[1], 'last_used_at', ARGV[2])
journal('debit', -1, balance, ARGV[1], ARGV[2])
count(ARGV[4] .. ARGV[6], 'charged:' .. ARGV[7], 1, ARGV[5])
redis.call('SET', KEYS[3], 'debited:' .. balance .. ':' .. ARGV[7] .. ':' .. ARGV[6] .. ':1', 'EX', ARGV[3])
return {'debited', balance}
`);

export async function debitExportPage(
  context: LedgerContext,
  request: { keyId: string; debitId: string },
): Promise<ExportPageDebitReply> {
  const { keys } = context;
  const at = context.now();
  const reply = await exportPageDebitScript.run(
    context.redis,
    [
      keys.keyRecord(request.keyId),
      keys.journal(request.keyId),
      keys.debitMarker(request.keyId, request.debitId),
    ],
    [
      request.debitId,
      at,
      MARKER_TTL_SECONDS.debit,
      usagePrefix(context, request.keyId),
      USAGE_TTL_SECONDS,
      utcDay(at),
      EXPORT_PAGE_OPERATION,
    ],
  );
  const [outcome, balance] = scriptReply(reply);
  return { outcome: outcome as ExportPageDebitReply["outcome"], balance: balance ?? 0 };
}
