/** API key records: creation (with the free grant), revocation and the reads the gateway makes. */
import type {
  BalanceReply,
  CreateKeyReply,
  CreateKeyRequest,
  KeyDetails,
  LookupKeyReply,
} from "@rda/contracts";
import { hashSecret, newKeyId, newSecret } from "../secrets.ts";
import type { LedgerContext } from "./context.ts";
import { createKeyScript, revokeScript } from "./scripts.ts";

export interface KeyDefaults {
  readonly freeCredits: number;
  readonly rateLimit: { readonly qps: number; readonly burst: number };
}

export type RevokeOutcome = "revoked" | "already_revoked" | "not_found";

/**
 * Creates a key: first its record and grant (one atomic script in the key's slot), then its id in
 * the set of keys, and last the hash → id mapping, so a lookup can never find a half-made key.
 */
export async function createKey(
  context: LedgerContext,
  request: CreateKeyRequest,
  defaults: KeyDefaults,
): Promise<CreateKeyReply> {
  const { redis, keys } = context;
  const [id, secret] = [newKeyId(), newSecret()];
  const credits = request.credits ?? defaults.freeCredits;
  const now = context.now();
  const created = await createKeyScript.run(
    redis,
    [keys.keyRecord(id), keys.journal(id)],
    [
      request.label ?? "",
      request.rate_limit?.qps ?? defaults.rateLimit.qps,
      request.rate_limit?.burst ?? defaults.rateLimit.burst,
      new Date(now).toISOString(),
      credits,
      `grant:${id}`,
      now,
    ],
  );
  if (created !== 1) throw new Error(`key id collision on ${id}`);
  await redis.sadd(keys.keyIds, id);
  await redis.set(keys.keyIdByHash(hashSecret(secret)), id);
  return { id, key: secret, credits };
}

export async function revokeKey(context: LedgerContext, keyId: string): Promise<RevokeOutcome> {
  const outcome = await revokeScript.run(context.redis, [context.keys.keyRecord(keyId)], [context.now()]);
  return outcome as RevokeOutcome;
}

export async function lookupKey(context: LedgerContext, keyHash: string): Promise<LookupKeyReply> {
  const keyId = await context.redis.get(context.keys.keyIdByHash(keyHash));
  if (keyId === null) return { found: false };
  const [qps, burst, revoked] = await context.redis.hmget(
    context.keys.keyRecord(keyId),
    "qps",
    "burst",
    "revoked",
  );
  if (qps === null || burst === null) return { found: false };
  return {
    found: true,
    key: { id: keyId, rate_limit: { qps: Number(qps), burst: Number(burst) }, revoked: revoked === "1" },
  };
}

/** Spec §4 (account): always a fresh read from Redis, never a cache. */
export async function readBalance(context: LedgerContext, keyId: string): Promise<BalanceReply> {
  const details = await showKey(context, keyId);
  if (details === undefined) return { outcome: "unknown_key" };
  return {
    outcome: "ok",
    balance: details.credits_balance,
    rate_limit: details.rate_limit,
    revoked: details.revoked,
  };
}

export async function showKey(context: LedgerContext, keyId: string): Promise<KeyDetails | undefined> {
  const record = await context.redis.hgetall(context.keys.keyRecord(keyId));
  if (record.balance === undefined) return undefined;
  return {
    id: keyId,
    label: record.label ?? "",
    credits_balance: Number(record.balance),
    revoked: record.revoked === "1",
    rate_limit: { qps: Number(record.qps), burst: Number(record.burst) },
    created_at: record.created_at ?? "",
  };
}
