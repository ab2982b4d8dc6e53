/**
 * Per-key and global-reserve limits in ONE Redis round trip (architecture.md step 3): a Lua token
 * bucket for the key (its own qps/burst, spec §8) and, for data endpoints, the shared upstream reserve
 * (issue 6 §4). Both are consumed only if both allow, so a request refused by one never spends the
 * other's token. Redis' own clock (TIME) is used so every gateway replica agrees on refill.
 *
 * The two buckets live in different hash slots; on Redis Cluster they would need one slot (a hash
 * tag shared by all keys, which defeats sharding) or two calls. We run a single Redis node.
 */
import type { Redis, RedisKeys } from "@rda/service-kit";
import { fail, type Step, succeed } from "./http/failure.ts";

const TOKEN_BUCKETS_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function level(key, qps, burst)
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local elapsed = now - (tonumber(state[2]) or now)
  if elapsed < 0 then elapsed = 0 end
  return math.min(burst, tokens + elapsed * qps / 1000)
end
local function take(key, tokens, qps, burst)
  redis.call('HSET', key, 'tokens', tostring(tokens - 1), 'at', now)
  redis.call('PEXPIRE', key, math.ceil(burst * 1000 / qps) + 1000)
end
local function wait_ms(tokens, qps)
  return math.ceil((1 - tokens) * 1000 / qps)
end
local kq, kb = tonumber(ARGV[1]), tonumber(ARGV[2])
local key_tokens = level(KEYS[1], kq, kb)
if key_tokens < 1 then return {0, 1, wait_ms(key_tokens, kq)} end
local gq, gb = tonumber(ARGV[3]), tonumber(ARGV[4])
if gq > 0 then
  local global_tokens = level(KEYS[2], gq, gb)
  if global_tokens < 1 then return {0, 2, wait_ms(global_tokens, gq)} end
  take(KEYS[2], global_tokens, gq, gb)
end
take(KEYS[1], key_tokens, kq, kb)
return {1, 0, 0}
`;

export interface Rate {
  readonly qps: number;
  readonly burst: number;
}

export interface RateLimiter {
  /** `reserve` is true for data endpoints (the account endpoint does not touch the reserve). */
  admit(keyId: string, rate: Rate, reserve: boolean): Promise<Step<void>>;
}

type BucketsCommand = (
  keyBucket: string,
  globalBucket: string,
  keyQps: number,
  keyBurst: number,
  globalQps: number,
  globalBurst: number,
) => Promise<[number, number, number]>;

const SCOPES = { 1: "key", 2: "global" } as const;

export function createRateLimiter(deps: {
  redis: Redis;
  keys: RedisKeys;
  reserve: Rate;
  onLimited?: (scope: "key" | "global") => void;
}): RateLimiter {
  const { redis, keys, reserve } = deps;
  // defineCommand sends EVALSHA and falls back to EVAL once if the script cache was flushed.
  redis.defineCommand("rdaTokenBuckets", { numberOfKeys: 2, lua: TOKEN_BUCKETS_LUA });
  const run = (redis as unknown as { rdaTokenBuckets: BucketsCommand }).rdaTokenBuckets.bind(redis);
  return {
    async admit(keyId, rate, useReserve) {
      let result: [number, number, number];
      try {
        result = await run(
          keys.keyRateBucket(keyId),
          keys.globalReserveBucket,
          rate.qps,
          rate.burst,
          useReserve ? reserve.qps : 0,
          reserve.burst,
        );
      } catch {
        // Redis down before the debit: 503, never unpaid or unlimited data (issue 6 §5).
        return fail("service_unavailable", { retryAfterSeconds: 2 });
      }
      const [allowed, scopeCode, waitMs] = result;
      if (allowed === 1) return succeed(undefined);
      const scope = SCOPES[scopeCode as 1 | 2] ?? "key";
      deps.onLimited?.(scope);
      return fail(scope === "global" ? "global_rate_limited" : "rate_limited", {
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      });
    },
  };
}
