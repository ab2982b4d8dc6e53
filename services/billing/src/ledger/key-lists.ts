/** Lists of keys: one portal account's (with its limits), or every key with a label (operators). */
import type { KeyDetails, ListKeysReply } from "@rda/contracts";
import { type KeyDefaults, showKeys } from "./api-keys.ts";
import type { LedgerContext } from "./context.ts";

const SCAN_PAGE = 1_000;

/** Newest first (creation order), revoked keys included, with how many the account has and may have. */
export async function listAccountKeys(
  context: LedgerContext,
  accountId: string,
  defaults: KeyDefaults,
): Promise<ListKeysReply> {
  const { redis, keys } = context;
  const [ids, counts] = await Promise.all([
    redis.lrange(keys.accountKeys(accountId), 0, -1),
    redis.hmget(keys.accountKeyCounts(accountId), "active", "created"),
  ]);
  return {
    keys: (await showKeys(context, ids)).reverse(),
    limits: {
      active: Number(counts[0] ?? 0),
      created: Number(counts[1] ?? 0),
      max_active: defaults.maxActiveKeysPerAccount,
      max_created: defaults.maxKeysCreatedPerAccount,
    },
  };
}

/** An operator's search: every key whose label is exactly `label`, newest first. */
export async function listKeysByLabel(context: LedgerContext, label: string): Promise<ListKeysReply> {
  const matching: KeyDetails[] = [];
  let cursor = "0";
  do {
    const [next, ids] = await context.redis.sscan(context.keys.keyIds, cursor, "COUNT", SCAN_PAGE);
    for (const key of await showKeys(context, ids)) if (key.label === label) matching.push(key);
    cursor = next;
  } while (cursor !== "0");
  return { keys: newestFirst(matching) };
}

function newestFirst(list: KeyDetails[]): KeyDetails[] {
  return [...list].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
}
