/**
 * The pacer's atomic steps, on Redis' own clock so every replica agrees on the time.
 * KEYS[1]: the state hash (`next_at`, `closed_until`, `reset_at`, `remaining`, `last_<class>`,
 * `clock_<class>`, `freed_at`); KEYS[2]: the leases of every request in flight; KEYS[3] to KEYS[6]:
 * see TAKE_TURN.
 */

/**
 * KEYS[3]: the interactive callers waiting now (lease ids scored by when their wait lapses);
 * KEYS[4]: the background requests in flight (a subset of KEYS[2]); KEYS[5]: each flow's fair-queuing
 * tag; KEYS[6]: the flows waiting now (scored by when their wait lapses).
 * ARGV: lease id, interval between requests (ms), most in flight, lease length (ms), traffic class
 * ('interactive', 'monitors', 'exports'), the class's guaranteed share of turns (0 to 1; background
 * only), the account the request is for ('' when not said).
 *
 * Classes: interactive callers never wait behind background work: while one waits, background takes
 * no turn; background never holds the last place in flight; and an interactive turn is spaced only
 * from the interactive turn before it, pushing background's next slot back instead (so over any
 * stretch of time the rate holds, give or take the one turn borrowed). Background is never starved:
 * a class whose last turn is older than interval / share takes the next turn anyway.
 *
 * Fair shares within a class (docs/upstream.md#fair-shares): a flow is one account in one class.
 * Start-time fair queuing: each flow's tag is the virtual time its next turn starts, max(its last
 * tag + 1, the class's clock), and the class's clock is the tag of the turn last given. A free turn
 * goes to the waiting flow with the lowest tag; another flow takes it only once it has stayed free
 * for GRACE_MS (the lowest flow's callers were not there to ask), so no turn is lost to fairness.
 * However many requests one account sends at once, it gets one turn in as many as there are flows
 * waiting.
 *
 * Returns {0, 0} granted, {1, ms, flows} wait about that long and ask again (flows: the other flows
 * of the class waiting), {2, ms} the window is spent for that long.
 */
export const TAKE_TURN = `
local GRACE_MS, LAPSE_MS = 400, 800
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 2, 4 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
local class = ARGV[5]
local interactive = class == 'interactive'
local flow = class .. '|' .. ARGV[7]
local closed = tonumber(redis.call('HGET', KEYS[1], 'closed_until')) or 0
if closed > now then return {2, closed - now} end
local reset_at = tonumber(redis.call('HGET', KEYS[1], 'reset_at')) or 0
local remaining = tonumber(redis.call('HGET', KEYS[1], 'remaining'))
local window_known = reset_at > now and remaining ~= nil
if window_known and remaining <= 0 then return {2, reset_at - now} end
local interval = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local clock = tonumber(redis.call('HGET', KEYS[1], 'clock_' .. class)) or 0
local function tag_of(f) return math.max(tonumber(redis.call('HGET', KEYS[5], f)) or 0, clock) end
local tag = tag_of(flow)
-- The other flows of this class waiting now, and how many of them are further behind than this one.
local ahead, others = 0, 0
local prefix = class .. '|'
for _, other in ipairs(redis.call('ZRANGE', KEYS[6], 0, -1)) do
  if other ~= flow and string.sub(other, 1, #prefix) == prefix then
    others = others + 1
    if tag_of(other) < tag then ahead = ahead + 1 end
  end
end
local function wait(ms)
  if interactive then redis.call('ZADD', KEYS[3], now + LAPSE_MS, ARGV[1]) end
  redis.call('ZADD', KEYS[6], now + LAPSE_MS, flow)
  redis.call('PEXPIRE', KEYS[3], 600000)
  redis.call('PEXPIRE', KEYS[6], 600000)
  return {1, ms, others}
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
-- Interactive is spaced only by interactive turns: one that finds the next slot taken by
-- background borrows it, and the slot after it moves on by one interval for background.
local slot = next_at
if interactive then slot = tonumber(redis.call('HGET', KEYS[1], 'next_interactive_at')) or 0 end
if slot > now then return wait(slot - now) end
if ahead > 0 then
  local free_since = math.max(slot, tonumber(redis.call('HGET', KEYS[1], 'freed_at')) or 0)
  if now - free_since < GRACE_MS then return wait(GRACE_MS / 2) end
end
if interactive then redis.call('HSET', KEYS[1], 'next_interactive_at', now + interval) end
redis.call('HSET', KEYS[1], 'next_at', math.max(next_at, now) + interval, 'last_' .. class, now,
  'clock_' .. class, tag)
redis.call('HSET', KEYS[5], flow, tag + 1)
redis.call('ZREM', KEYS[6], flow)
if window_known then redis.call('HSET', KEYS[1], 'remaining', remaining - 1) end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
if interactive then
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[4]), ARGV[1])
  redis.call('PEXPIRE', KEYS[4], 600000)
end
for _, i in ipairs({1, 2, 5}) do redis.call('PEXPIRE', KEYS[i], 600000) end
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
-- A place in flight freed now: the flow furthest behind gets GRACE_MS to take it (TAKE_TURN).
redis.call('HSET', KEYS[1], 'freed_at', now)
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
