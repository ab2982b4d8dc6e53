/**
 * The response cache's Lua scripts (shared-fetch.ts, `createRedisCacheStore`). Each runs atomically on the cache's Redis, so
 * replicas never disagree about who fetches a request or whether an entry still fits the size cap.
 */
import { LEASE_STILL_HELD } from "@rda/service-kit";

/**
 * Stores one entry unless the cap would be passed.
 * KEYS[1] entry; KEYS[2] the byte counter of the minute the entry expires in; KEYS[3..] the byte
 * counters of every minute in which a live entry can expire, from the current minute on (KEYS[2]
 * among them).
 * ARGV: value, ttl ms, bytes the entry costs, cap in bytes, counter ttl ms, now (epoch ms), the
 * overhead counted per entry. Returns 1 stored, 0 full.
 *
 * An entry replaced before it expires (a page fetched anew with no-cache, an answer kept again)
 * gives its bytes back to the counter of the minute it would have expired in: otherwise every
 * replacement would count once more, and a page fetched anew in a loop would fill the cap and stop
 * the cache keeping anything else.
 */
export const STORE_ENTRY = `
local used = 0
for i = 3, #KEYS do
  used = used + tonumber(redis.call('GET', KEYS[i]) or '0')
end
local freed = 0
local freedCounter
local remaining = redis.call('PTTL', KEYS[1])
if remaining > 0 then
  local nowMs = tonumber(ARGV[6])
  local index = 3 + math.floor((nowMs + remaining) / 60000) - math.floor(nowMs / 60000)
  if index >= 3 and index <= #KEYS then
    freedCounter = KEYS[index]
    local counted = tonumber(redis.call('GET', freedCounter) or '0')
    freed = math.min(redis.call('STRLEN', KEYS[1]) + tonumber(ARGV[7]), counted)
  end
end
local cost = tonumber(ARGV[3])
if used - freed + cost > tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if freed > 0 then redis.call('INCRBY', freedCounter, -freed) end
redis.call('INCRBY', KEYS[2], cost)
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
`;

/**
 * Claims the fetch of one request. KEYS[1] lock; ARGV: token, lease ms.
 * Returns "" when this caller now holds it, else the holder's token.
 */
export const CLAIM_FETCH = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return '' end
return redis.call('GET', KEYS[1]) or ''
`;

/**
 * Extends a claim while its fetch runs (only if still this caller's), so a replica that died
 * mid-fetch loses it within one short lease rather than holding every waiter for a whole deadline.
 * KEYS[1] lock; ARGV: token, lease ms. Returns 1 when extended.
 */
export const RENEW_FETCH = `${LEASE_STILL_HELD}
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

/**
 * Publishes a fetch's outcome for its waiters and gives the claim up (only if still this caller's):
 * it expires at once (PEXPIRE rather than DEL, so the adapters' Redis user needs no DEL at all).
 * KEYS[1] lock, KEYS[2] outcome; ARGV: token, outcome ('' when too large to share), outcome ttl ms.
 */
export const FINISH_FETCH = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], 1) end
return 1
`;

/**
 * What a waiter sees: the outcome of the fetch it waits on, or whether that fetch is still claimed.
 * KEYS[1] lock, KEYS[2] outcome; ARGV: the token waited on. Returns {outcome or '', 1 while claimed}.
 */
export const WATCH_FETCH = `
local outcome = redis.call('GET', KEYS[2])
if outcome then return {outcome, 0} end
if redis.call('GET', KEYS[1]) == ARGV[1] then return {'', 1} end
return {'', 0}
`;
