/**
 * `Idempotency-Key` on data requests (docs/api.md#idempotency), as Stripe does it: the first request
 * with a key claims it; once that request was served and charged, its response is stored and every
 * later request with the same key, the same API key and the same method, path and query gets that
 * response again — with its original credit figures, and charged nothing more. A request refunded or
 * voided is not stored: the retry is a new attempt. The same key with a different request is refused
 * (422); while the first is still being served, a duplicate is refused (409). The store is Redis, so
 * every gateway replica sees the same keys; the ledger's request ids stay gateway-generated.
 *
 * What a customer can make it hold is bounded, so that no amount of credits fills the Redis the
 * ledger lives in (docs/operations.md#the-idempotency-store):
 * - a response larger than `maxResponseBytes` is not stored;
 * - each API key may hold at most `keyQuotaBytes` of stored responses within the replay window;
 * - all keys together at most `storeMaxBytes`.
 * A served response that is not stored leaves a small record saying so, and its retry gets 409
 * `idempotency_response_not_kept` instead of being served (and charged) again. Sizes are counted in
 * hourly buckets (a 24th of the replay window) that expire with the records counted in them: the
 * count never undercounts what is stored.
 *
 * The records have a key family of their own (`…:idempotency:…`), apart from the ledger's: every one
 * expires, so the family may also live on a Redis of its own that evicts.
 *
 * A stored response is sealed (service-kit's sealing) under a key derived from the Idempotency-Key
 * and the API key the caller presented, which the store never keeps (it names a record by the
 * Idempotency-Key's hash, and the key by its id): an answer may carry a secret shown once (a
 * webhook's signing secret), and a copy of Redis must reveal none. Only a caller presenting both
 * again opens it; a replay after the key's secret was rotated cannot, and is told the response was
 * not kept.
 */
import { err, ok, type Result } from "@rda/contracts";
import {
  keyFromCallerSecrets,
  luaScript,
  openBytes,
  type Redis,
  type RedisKeys,
  sealBytes,
  sha256Hex,
} from "@rda/service-kit";

/** How long a served response can be replayed, by default. */
export const REPLAY_SECONDS = 24 * 60 * 60;

export interface IdempotencyLimits {
  /** A larger response is not stored (IDEMPOTENCY_MAX_RESPONSE_BYTES). */
  readonly maxResponseBytes: number;
  /** Stored bytes one API key may hold within the replay window (IDEMPOTENCY_KEY_QUOTA_BYTES). */
  readonly keyQuotaBytes: number;
  /** Stored bytes of all keys together (IDEMPOTENCY_STORE_MAX_BYTES). */
  readonly storeMaxBytes: number;
}

export const DEFAULT_IDEMPOTENCY_LIMITS: IdempotencyLimits = {
  maxResponseBytes: 1_048_576,
  keyQuotaBytes: 8 * 1_048_576,
  storeMaxBytes: 512 * 1_048_576,
};

/** What a record costs besides its body (field names, fingerprint, figures, Redis overhead). */
export const RECORD_OVERHEAD_BYTES = 256;
/** The store's total is read at most this often (each completion would otherwise read it). */
const TOTAL_CACHE_MS = 1_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** KEYS: the record. ARGV: request fingerprint, claim ttl (ms). */
const CLAIM = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'body', 'credits_used', 'credits_remaining', 'status')
if not record[1] then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'fingerprint', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {'claimed'}
end
if record[2] ~= ARGV[1] then return {'mismatch'} end
if record[1] == 'pending' then return {'in_progress'} end
if record[1] == 'not_kept' then return {'not_kept'} end
return {'replay', record[3], record[4], record[5], record[6] or '200'}
`;

/**
 * KEYS: the record, the key's size buckets. ARGV: fingerprint, body, credits used, credits
 * remaining, ttl (s), this bucket, oldest live bucket, key quota, overhead, a refusal decided
 * before ('' when none), bucket hash ttl (s), HTTP status. Returns 'stored', the reason it was
 * not, or 'gone'.
 */
const COMPLETE = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint')
if record[1] ~= 'pending' or record[2] ~= ARGV[1] then return 'gone' end
local oldest = tonumber(ARGV[7])
local held = 0
local buckets = redis.call('HGETALL', KEYS[2])
for i = 1, #buckets, 2 do
  if tonumber(buckets[i]) < oldest then redis.call('HDEL', KEYS[2], buckets[i])
  else held = held + tonumber(buckets[i + 1]) end
end
local reason = ARGV[10]
local size = string.len(ARGV[2]) + tonumber(ARGV[9])
if reason == '' and held + size > tonumber(ARGV[8]) then reason = 'key_quota' end
if reason == '' then
  redis.call('HSET', KEYS[1], 'state', 'served', 'body', ARGV[2], 'credits_used', ARGV[3], 'credits_remaining', ARGV[4], 'status', ARGV[12])
else
  size = tonumber(ARGV[9])
  redis.call('HSET', KEYS[1], 'state', 'not_kept', 'reason', reason)
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('HINCRBY', KEYS[2], ARGV[6], size)
redis.call('EXPIRE', KEYS[2], ARGV[11])
if reason == '' then return 'stored' end
return reason
`;

/**
 * KEYS: the record. ARGV: fingerprint, whether a completed record goes too ('1' or '0'). A claim
 * whose request was not served is let go; so is a response recorded but then not delivered.
 */
const RELEASE = `
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint')
if record[2] ~= ARGV[1] then return 0 end
if record[1] == 'pending' or ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
return 1
`;

const claimScript = luaScript(CLAIM);
const completeScript = luaScript(COMPLETE);
const releaseScript = luaScript(RELEASE);

export interface StoredResponse {
  readonly body: Buffer;
  readonly creditsUsed: number;
  readonly creditsRemaining: number;
  /** The HTTP status it was answered with (200 when not given: the data routes). */
  readonly status?: number;
}

export type ClaimOutcome =
  | { readonly kind: "claimed"; readonly claim: Claim }
  | { readonly kind: "replay"; readonly response: StoredResponse }
  | { readonly kind: "mismatch" }
  | { readonly kind: "in_progress" }
  /** Served and charged before, but its response was not stored (too large, or over a quota). */
  | { readonly kind: "not_kept" };

/** Why a served response was not stored. */
export type NotKeptReason = "too_large" | "key_quota" | "store_full";

export interface Claim {
  /**
   * The request token the command's owning service is sent (contracts' `requestTokenSchema`): a
   * hash of the key's id, the Idempotency-Key and the request, so the same request under the same
   * key is one command there however often it arrives, and another request under the key another.
   */
  readonly requestToken: string;
  /**
   * The request was served: store its response for replays (or note that it was not). Called
   * before the response is written, so a retry sent the moment the answer arrives replays it.
   */
  complete(response: StoredResponse): Promise<void>;
  /**
   * The request was refused, refunded or voided: a retry is a new attempt. After `complete`, the
   * response recorded is withdrawn too (it was never delivered, and its credit went back).
   */
  release(): Promise<void>;
}

export interface IdempotencyStore {
  /**
   * `callerSecret`: the API key the caller presented ("" for a caller with a credential instead),
   * which with the Idempotency-Key seals the stored response.
   */
  claim(
    keyId: string,
    idempotencyKey: string,
    request: string,
    claimTtlMs: number,
    callerSecret?: string,
  ): Promise<ClaimOutcome>;
  /** Bytes stored by all keys within the replay window (counted generously: see above). */
  storedBytes(): Promise<number>;
  readonly limits: IdempotencyLimits;
}

export interface IdempotencyStoreOptions {
  readonly replaySeconds?: number;
  readonly limits?: Partial<IdempotencyLimits>;
  /** Told of every served response that was not stored. */
  readonly onNotKept?: (reason: NotKeptReason) => void;
  readonly now?: () => number;
}

/** Reads the header: undefined when absent; an error sentence when it is malformed or repeated. */
export function readIdempotencyKey(header: string | string[] | undefined): Result<string | undefined> {
  if (header === undefined) return ok(undefined);
  if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
    return err("Idempotency-Key must be given once, as 1 to 255 visible ASCII characters");
  }
  return ok(header);
}

/**
 * The request's token: its key's id, the Idempotency-Key's hash and the request's fingerprint, hashed
 * once more. The raw key never leaves the gateway; the request is part of it because the claim is
 * let go after a refusal or a lost answer, and another request under the same key must not be
 * answered with what the first made.
 */
function requestTokenOf(keyId: string, idempotencyKey: string, fingerprint: string): string {
  return sha256Hex(`request-token\n${keyId}\n${sha256Hex(idempotencyKey)}\n${fingerprint}`);
}

export function createIdempotencyStore(
  redis: Redis,
  keys: RedisKeys,
  options: IdempotencyStoreOptions = {},
): IdempotencyStore {
  const replaySeconds = options.replaySeconds ?? REPLAY_SECONDS;
  const limits = { ...DEFAULT_IDEMPOTENCY_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const bucketSeconds = Math.max(1, Math.ceil(replaySeconds / 24));
  const bucketTtl = replaySeconds + 2 * bucketSeconds;
  // A record written in bucket b expires before (b + 1) * bucketSeconds + replaySeconds.
  const window = () => {
    const seconds = now() / 1000;
    const current = Math.floor(seconds / bucketSeconds);
    return { current, oldest: Math.floor((seconds - replaySeconds) / bucketSeconds) };
  };

  const storedBytes = async () => {
    const { current, oldest } = window();
    const buckets: string[] = [];
    for (let bucket = oldest; bucket <= current; bucket++) buckets.push(keys.idempotencyStoreBytes(bucket));
    // One GET per bucket: in a Redis Cluster they live in different slots.
    const counts = await Promise.all(buckets.map((bucket) => redis.get(bucket)));
    return counts.reduce((sum, count) => sum + Number(count ?? 0), 0);
  };
  let total: { bytes: number; at: number } | undefined;
  const storeIsFull = async (adding: number) => {
    if (total === undefined || now() - total.at > TOTAL_CACHE_MS) {
      total = { bytes: await storedBytes(), at: now() };
    }
    return total.bytes + adding > limits.storeMaxBytes;
  };

  return {
    limits,
    storedBytes,
    async claim(keyId, idempotencyKey, request, claimTtlMs, callerSecret = "") {
      const record = keys.idempotentRequest(keyId, sha256Hex(idempotencyKey));
      const fingerprint = sha256Hex(request);
      const sealingKey = keyFromCallerSecrets("idempotent-response", keyId, idempotencyKey, callerSecret);
      const reply = (await claimScript.runForBytes(redis, [record], [fingerprint, claimTtlMs])) as Buffer[];
      const outcome = reply[0]?.toString();
      if (outcome === "mismatch" || outcome === "in_progress" || outcome === "not_kept") {
        return { kind: outcome };
      }
      if (outcome === "replay") {
        const [, sealed, used, remaining, status] = reply;
        const body = sealed && openBytes(sealingKey, sealed);
        if (body === undefined) return { kind: "not_kept" };
        return {
          kind: "replay",
          response: {
            body,
            creditsUsed: Number(used),
            creditsRemaining: Number(remaining),
            status: Number(status),
          },
        };
      }
      let completed = false;
      return {
        kind: "claimed",
        claim: {
          requestToken: requestTokenOf(keyId, idempotencyKey, fingerprint),
          async complete(response) {
            completed = true;
            const size = response.body.length + RECORD_OVERHEAD_BYTES;
            const refusal: NotKeptReason | "" =
              response.body.length > limits.maxResponseBytes
                ? "too_large"
                : (await storeIsFull(size))
                  ? "store_full"
                  : "";
            const { current, oldest } = window();
            const outcome = String(
              await completeScript.run(
                redis,
                [record, keys.idempotencyKeyBytes(keyId)],
                [
                  fingerprint,
                  refusal === "" ? sealBytes(sealingKey, response.body) : "",
                  response.creditsUsed,
                  response.creditsRemaining,
                  replaySeconds,
                  current,
                  oldest,
                  limits.keyQuotaBytes,
                  RECORD_OVERHEAD_BYTES,
                  refusal,
                  bucketTtl,
                  response.status ?? 200,
                ],
              ),
            );
            if (outcome === "gone") return;
            const counted = outcome === "stored" ? size : RECORD_OVERHEAD_BYTES;
            const bucket = keys.idempotencyStoreBytes(current);
            await redis.incrby(bucket, counted);
            await redis.expire(bucket, bucketTtl);
            if (total) total.bytes += counted;
            if (outcome !== "stored") options.onNotKept?.(outcome as NotKeptReason);
          },
          async release() {
            await releaseScript.run(redis, [record], [fingerprint, completed ? "1" : "0"]);
          },
        },
      };
    },
  };
}
