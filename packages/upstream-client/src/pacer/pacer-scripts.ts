/**
 * The pacer's atomic steps, on Redis' own clock so every replica agrees on the time.
 * KEYS[1]: the state hash (`next_at`, `closed_until`, `reset_at`, `remaining`, `last_<class>`);
 * KEYS[2]: the leases of every request in flight; KEYS[3] and KEYS[4]: see TAKE_TURN.
 */

/**
 * KEYS[3]: the interactive callers waiting now (lease ids scored by when their wait lapses);
 * KEYS[4]: the background requests in flight (a subset of KEYS[2]).
 * ARGV: lease id, interval between requests (ms), most in flight, lease length (ms), traffic class
 * ('interactive', 'monitors', 'exports'), the class's guaranteed share of turns (0 to 1; background
 * only).
 * Interactive callers never wait behind background work: while one waits, background takes no turn;
 * background never holds the last place in flight; and an interactive turn is spaced only from the
 * interactive turn before it, pushing background's next slot back instead (so over any stretch of
 * time the rate holds, give or take the one turn borrowed). Background is never starved: a class whose
 * last turn is older than interval / share takes the next turn anyway.
 * Returns {0, 0} granted, {1, ms} wait about that long and ask again, {2, ms} the window is spent
 * for that long.
 */
export const TAKE_TURN = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local class = ARGV[5]
local interactive = class == 'interactive'
local closed = tonumber(redis.call('HGET', KEYS[1], 'closed_until')) or 0
if closed > now then return {2, closed - now} end
local reset_at = tonumber(redis.call('HGET', KEYS[1], 'reset_at')) or 0
local remaining = tonumber(redis.call('HGET', KEYS[1], 'remaining'))
local window_known = reset_at > now and remaining ~= nil
if window_known and remaining <= 0 then return {2, reset_at - now} end
local interval = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local function wait(ms)
  if interactive then redis.call('ZADD', KEYS[3], now + 1000, ARGV[1]) end
  redis.call('PEXPIRE', KEYS[3], 600000)
  return {1, ms}
end
if not interactive then
  local share = tonumber(ARGV[6]) or 0
  local last = tonumber(redis.call('HGET', KEYS[1], 'last_' .. class))
  if not last then
    last = now
    redis.call('HSET', KEYS[1], 'last_' .. class, now)
  end
  local starving = share > 0 and now - last >= interval / share
  if not starving then
    if redis.call('ZCARD', KEYS[3]) > 0 then return wait(100) end
    if cap > 1 and redis.call('ZCARD', KEYS[4]) >= cap - 1 then return wait(100) end
  end
end
if redis.call('ZCARD', KEYS[2]) >= cap then return wait(50) end
local next_at = tonumber(redis.call('HGET', KEYS[1], 'next_at')) or 0
if interactive then
  -- Interactive is spaced only by interactive turns: one that finds the next slot taken by
  -- background borrows it, and the slot after it moves on by one interval for background.
  local next_interactive = tonumber(redis.call('HGET', KEYS[1], 'next_interactive_at')) or 0
  if next_interactive > now then return wait(next_interactive - now) end
  redis.call('HSET', KEYS[1], 'next_interactive_at', now + interval)
elseif next_at > now then
  return wait(next_at - now)
end
redis.call('HSET', KEYS[1], 'next_at', math.max(next_at, now) + interval, 'last_' .. class, now)
if window_known then redis.call('HSET', KEYS[1], 'remaining', remaining - 1) end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
if interactive then
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[4]), ARGV[1])
  redis.call('PEXPIRE', KEYS[4], 600000)
end
redis.call('PEXPIRE', KEYS[1], 600000)
redis.call('PEXPIRE', KEYS[2], 600000)
return {0, 0}
`;

/** ARGV: lease id, lease length (ms). Keeps a lease alive while its request is still out. */
export const RENEW_LEASE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[4], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), ARGV[1])
`;

/**
 * ARGV: lease id, remaining ('' when not sent), window end in epoch ms ('' when unknown), '1' when
 * the answer was a 429. The remaining count is read conservatively: every other request in flight
 * may already have been counted upstream after this answer was written, so it is taken off; and
 * within one window only a lower count replaces the one kept, since answers arrive out of order.
 */
export const FINISH_TURN = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
local others = redis.call('ZCOUNT', KEYS[2], now, '+inf')
local reset_at = tonumber(ARGV[3])
if ARGV[4] == '1' then
  local until_ms = reset_at or (now + 60000)
  local closed = tonumber(redis.call('HGET', KEYS[1], 'closed_until')) or 0
  if until_ms > closed then redis.call('HSET', KEYS[1], 'closed_until', until_ms) end
end
local remaining = tonumber(ARGV[2])
if reset_at and remaining and reset_at > now then
  local estimate = math.max(0, remaining - others)
  local kept_reset = tonumber(redis.call('HGET', KEYS[1], 'reset_at')) or 0
  if math.abs(kept_reset - reset_at) < 1500 then
    local kept = tonumber(redis.call('HGET', KEYS[1], 'remaining'))
    if kept == nil or estimate < kept then redis.call('HSET', KEYS[1], 'remaining', estimate) end
  elseif reset_at > kept_reset then
    redis.call('HSET', KEYS[1], 'reset_at', reset_at, 'remaining', estimate)
  end
end
redis.call('PEXPIRE', KEYS[1], 600000)
return others
`;
