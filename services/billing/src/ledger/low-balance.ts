/**
 * An account's low-balance threshold, kept where admission reads it: `low_balance_at` on each of its
 * keys' records ('' for the default, admission-scripts.ts), and on the account's key counters for
 * the keys it creates later (api-keys.ts copies it).
 */
import type { MonthSpend } from "@rda/contracts";
import type { LedgerContext } from "./context.ts";

/**
 * What a debit's script replies once it took its credits: the lines a debit can cross are read
 * from these (endpoints.ts, `crossingsOf`). A replayed debit (already recorded) has none: it crossed nothing.
 */
export interface DebitFigures {
  readonly balance: number;
  readonly month_spend?: MonthSpend | undefined;
  readonly low_balance_threshold?: number | undefined;
  readonly low_balance_round?: number | undefined;
}

export async function setLowBalanceThreshold(
  context: LedgerContext,
  accountId: string,
  threshold: number | null,
): Promise<number> {
  const { redis, keys } = context;
  const value = threshold === null ? "" : String(threshold);
  await redis.hset(keys.accountKeyCounts(accountId), "low_balance_at", value);
  const ids = await redis.lrange(keys.accountKeys(accountId), 0, -1);
  let updated = 0;
  for (const id of ids) {
    // Only a key the account still owns (the list holds only its own, but the record decides).
    if ((await redis.hget(keys.keyRecord(id), "account_id")) !== accountId) continue;
    await redis.hset(keys.keyRecord(id), "low_balance_at", value);
    updated += 1;
  }
  return updated;
}

/** The account's chosen threshold for a key it just created ('' or absent: the default). */
export async function inheritLowBalanceThreshold(context: LedgerContext, accountId: string, keyId: string) {
  const value = await context.redis.hget(context.keys.accountKeyCounts(accountId), "low_balance_at");
  if (value) await context.redis.hset(context.keys.keyRecord(keyId), "low_balance_at", value);
}
