/**
 * API key records: creation (with the free grant, within the owning account's limits), revocation,
 * rotation, and the reads the gateway, the operator CLI and the portal make.
 */
import type {
  CreateKeyReply,
  CreateKeyRequest,
  KeyDetails,
  LookupKeyReply,
  LookupKeyRequest,
} from "@rda/contracts";
import { calendarMonthOf } from "@rda/contracts";
import { hashApiKey } from "@rda/service-kit";
import { newKeyId, newSecret } from "../secrets.ts";
import { type LedgerContext, scriptReply, USAGE_TTL_SECONDS, utcDay } from "./context.ts";
import { inheritLowBalanceThreshold } from "./low-balance.ts";
import {
  claimAccountKeyScript,
  createKeyScript,
  releaseAccountKeyScript,
  revokeScript,
  rotateScript,
} from "./scripts.ts";
import { monthSpendOf } from "./spend-caps.ts";

export interface KeyDefaults {
  readonly freeCredits: number;
  readonly rateLimit: { readonly qps: number; readonly burst: number };
  /** A portal account may hold this many unrevoked keys (ACCOUNT_MAX_ACTIVE_KEYS). */
  readonly maxActiveKeysPerAccount: number;
  /** ... and create this many in its lifetime (ACCOUNT_MAX_KEYS_CREATED). */
  readonly maxKeysCreatedPerAccount: number;
  /** The most credits a balance may hold after a top-up (BALANCE_LIMITS.maxCredits). */
  readonly maxBalance: number;
}

export type RevokeOutcome = "revoked" | "already_revoked" | "not_found";
export type RotateOutcome =
  | { outcome: "rotated"; id: string; key: string }
  | { outcome: "not_found" | "revoked" };

/**
 * Creates a key: first a place in its account's limits, then its record and grant (one atomic
 * script in the key's slot), then its id in the set of keys, and last the hash → id mapping, so a
 * lookup can never find a half-made key.
 */
export async function createKey(
  context: LedgerContext,
  request: CreateKeyRequest,
  defaults: KeyDefaults,
): Promise<CreateKeyReply> {
  const { redis, keys } = context;
  const account = request.account_id ?? "";
  if (account !== "") {
    const claim = await claimAccountSlot(context, account, defaults);
    if (claim !== undefined) return claim;
  }
  const [id, secret] = [newKeyId(), newSecret()];
  const credits = request.credits ?? defaults.freeCredits;
  const now = context.now();
  const created = await createKeyScript.run(
    redis,
    [keys.keyRecord(id), keys.journal(id), keys.usageDay(id, utcDay(now))],
    [
      request.label ?? "",
      request.rate_limit?.qps ?? defaults.rateLimit.qps,
      request.rate_limit?.burst ?? defaults.rateLimit.burst,
      new Date(now).toISOString(),
      credits,
      `grant:${id}`,
      now,
      account,
      hashApiKey(secret),
      USAGE_TTL_SECONDS,
    ],
  );
  if (created !== 1) {
    if (account !== "") await releaseAccountSlot(context, account, -1, -1);
    throw new Error(`key id collision on ${id}`);
  }
  await redis.sadd(keys.keyIds, id);
  if (account !== "") await redis.rpush(keys.accountKeys(account), id);
  if (account !== "") await inheritLowBalanceThreshold(context, account, id);
  await redis.set(keys.keyIdByHash(hashApiKey(secret)), id);
  return { outcome: "created", id, key: secret, credits };
}

async function claimAccountSlot(
  context: LedgerContext,
  account: string,
  defaults: KeyDefaults,
): Promise<CreateKeyReply | undefined> {
  const reply = await claimAccountKeyScript.run(
    context.redis,
    [context.keys.accountKeyCounts(account)],
    [defaults.maxActiveKeysPerAccount, defaults.maxKeysCreatedPerAccount],
  );
  const [outcome, limit, max] = scriptReply<[string, number]>(reply);
  if (outcome === "claimed") return undefined;
  return { outcome: "limit_reached", limit: limit as "active" | "lifetime", max };
}

function releaseAccountSlot(context: LedgerContext, account: string, active: number, created: number) {
  return releaseAccountKeyScript.run(
    context.redis,
    [context.keys.accountKeyCounts(account)],
    [active, created],
  );
}

/** `accountId` scopes the revocation to that account's keys; an operator passes none. */
export async function revokeKey(
  context: LedgerContext,
  keyId: string,
  accountId = "",
): Promise<RevokeOutcome> {
  const reply = await revokeScript.run(
    context.redis,
    [context.keys.keyRecord(keyId)],
    [context.now(), accountId],
  );
  const [outcome, owner] = scriptReply<[string]>(reply);
  if (outcome === "revoked" && owner !== "") await releaseAccountSlot(context, owner, -1, 0);
  return outcome as RevokeOutcome;
}

/**
 * A new secret for the same key id: the record points at the new hash first (billing then refuses
 * the old secret on every debit, whatever a gateway has cached), then the new lookup entry is made
 * and the old one deleted.
 */
export async function rotateKey(
  context: LedgerContext,
  keyId: string,
  accountId = "",
): Promise<RotateOutcome> {
  const secret = newSecret();
  const hash = hashApiKey(secret);
  const reply = await rotateScript.run(context.redis, [context.keys.keyRecord(keyId)], [hash, accountId]);
  const [outcome, oldHash] = scriptReply<[string]>(reply);
  if (outcome !== "rotated") return { outcome: outcome as "not_found" | "revoked" };
  await context.redis.set(context.keys.keyIdByHash(hash), keyId);
  if (oldHash !== "") await context.redis.del(context.keys.keyIdByHash(oldHash));
  return { outcome: "rotated", id: keyId, key: secret };
}

export async function lookupKey(context: LedgerContext, by: LookupKeyRequest): Promise<LookupKeyReply> {
  const keyId = "key_id" in by ? by.key_id : await context.redis.get(context.keys.keyIdByHash(by.key_hash));
  if (keyId === null) return { found: false };
  const [qps, burst, revoked, accountId] = await context.redis.hmget(
    context.keys.keyRecord(keyId),
    "qps",
    "burst",
    "revoked",
    "account_id",
  );
  if (qps === null || burst === null) return { found: false };
  const rate_limit = { qps: Number(qps), burst: Number(burst) };
  return {
    found: true,
    key: { id: keyId, rate_limit, revoked: revoked === "1", account_id: accountId || null },
  };
}

/** `accountId` scopes the read to that account's keys; an operator passes none. */
export async function showKey(
  context: LedgerContext,
  keyId: string,
  accountId?: string,
): Promise<KeyDetails | undefined> {
  const month = calendarMonthOf(context.now());
  const [record, spent] = await Promise.all([
    context.redis.hgetall(context.keys.keyRecord(keyId)),
    context.redis.hget(context.keys.monthlySpend(keyId), month),
  ]);
  if (record.balance === undefined) return undefined;
  if (accountId !== undefined && record.account_id !== accountId) return undefined;
  return keyDetails(keyId, record, monthSpendOf(month, record.monthly_cap, spent));
}

function keyDetails(
  keyId: string,
  record: Record<string, string>,
  monthSpend: KeyDetails["month_spend"],
): KeyDetails {
  const lastUsed = Number(record.last_used_at);
  return {
    id: keyId,
    label: record.label ?? "",
    credits_balance: Number(record.balance),
    revoked: record.revoked === "1",
    rate_limit: { qps: Number(record.qps), burst: Number(record.burst) },
    created_at: record.created_at ?? "",
    last_used_at: Number.isFinite(lastUsed) && lastUsed > 0 ? new Date(lastUsed).toISOString() : null,
    account_id: record.account_id ? record.account_id : null,
    month_spend: monthSpend,
  };
}

/** Details of many keys in one round trip, in the order given; ids without a record are skipped. */
export async function showKeys(context: LedgerContext, keyIds: readonly string[]): Promise<KeyDetails[]> {
  const month = calendarMonthOf(context.now());
  const pipeline = context.redis.pipeline();
  for (const id of keyIds) {
    pipeline.hgetall(context.keys.keyRecord(id));
    pipeline.hget(context.keys.monthlySpend(id), month);
  }
  const replies = (await pipeline.exec()) ?? [];
  return keyIds.flatMap((id, index) => {
    const [error, record] = replies[2 * index] ?? [];
    const [spendError, spent] = replies[2 * index + 1] ?? [];
    if (error) throw error;
    if (spendError) throw spendError;
    const fields = record as Record<string, string>;
    if (fields.balance === undefined) return [];
    return [keyDetails(id, fields, monthSpendOf(month, fields.monthly_cap, spent as string | null))];
  });
}
