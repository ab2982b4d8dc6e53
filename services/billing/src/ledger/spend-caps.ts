/**
 * Monthly spend caps: setting a key's cap (the record's `monthly_cap`, '' for none) and reading the
 * month's spend against it. The admission script enforces the cap (admission-scripts.ts).
 */
import {
  calendarMonthOf,
  type MonthSpend,
  type SetSpendCapReply,
  type SetSpendCapRequest,
} from "@rda/contracts";
import { luaScript } from "@rda/service-kit";
import { type LedgerContext, scriptReply } from "./context.ts";

/**
 * KEYS: record, monthly spend. ARGV: cap ('' for none), account_id ('' = any owner), month.
 * → {'set', cap (-1: none), month's spend} or {'not_found'}. A revoked key keeps its cap settable:
 * it changes nothing, and refusing would tell nobody anything useful.
 */
export const setSpendCapScript = luaScript(`
local record = redis.call('HMGET', KEYS[1], 'balance', 'account_id')
if not record[1] then return {'not_found'} end
if ARGV[2] ~= '' and (record[2] or '') ~= ARGV[2] then return {'not_found'} end
redis.call('HSET', KEYS[1], 'monthly_cap', ARGV[1])
return {'set', tonumber(ARGV[1]) or -1, tonumber(redis.call('HGET', KEYS[2], ARGV[3]) or '0')}
`);

export async function setSpendCap(
  context: LedgerContext,
  request: SetSpendCapRequest,
): Promise<SetSpendCapReply> {
  const month = calendarMonthOf(context.now());
  const reply = await setSpendCapScript.run(
    context.redis,
    [context.keys.keyRecord(request.id), context.keys.monthlySpend(request.id)],
    [request.monthly_cap ?? "", request.account_id ?? "", month],
  );
  const [outcome, cap = -1, spent = 0] = scriptReply(reply);
  if (outcome === "not_found") return { outcome };
  if (outcome === "set") return { outcome, month_spend: { month, spent, cap: cap < 0 ? null : cap } };
  throw new Error(`unexpected spend cap outcome '${outcome}'`);
}

/** The month's spend from the cap field of a key's record and its month's counter. */
export function monthSpendOf(month: string, capField: string | undefined, spent: string | null): MonthSpend {
  const cap = capField === undefined || capField === "" ? null : Number(capField);
  return { month, spent: Number(spent ?? 0), cap };
}

export const SPEND_CAP_SCRIPTS = [setSpendCapScript];
