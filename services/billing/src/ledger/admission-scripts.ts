/**
 * The scripts of admission and of a pending debit's end (docs/architecture.md, "admission"): admit,
 * settle, refund (also used to void a debit whose deadline passed) and the sweep that finds those.
 *
 * A debit record (lua-helpers.ts, DEBIT_RECORD: its one reader and writer) records one debit: a
 * request's, or a work debit's (work-debits.ts), which is the same admission with no bucket tokens,
 * under the work's id and with the work's deadline. Its state moves once from `pending` to `settled`
 * (the answer reached the client), `refunded` (the request failed, or the client left) or `voided` (nobody settled it in time); only a pending
 * debit can be refunded, so every refund is applied exactly once.
 *
 * Admission touches the key's slot and one global key (the pending index): fine on one Redis
 * primary, which the operator guide prescribes; see there for Redis Cluster. The upstream budget is
 * not admission's: the adapters' pacer alone owns it (docs/upstream.md#rate-limits).
 */

import { luaScript } from "@rda/service-kit";
import { DEBIT_RECORD, JOURNAL_AND_USAGE, LOW_BALANCE_LINE, TOKEN_BUCKETS } from "./lua-helpers.ts";

/**
 * The key's monthly spend cap, a step of its own in admission: the record's `monthly_cap` (absent
 * or '': no cap) against the month's spend, field ARGV[16] (YYYY-MM) of KEYS[8]. Checked after the
 * balance, in the same script as the debit, so it is exact however many requests race for the last
 * credits under the cap, on however many gateways. The debit adds to the month's spend; a refund
 * gives it back (refundScript).
 */
const SPEND_CAP = `
local function month_spend()
  local cap = tonumber(redis.call('HGET', KEYS[1], 'monthly_cap') or '') or -1
  return cap, tonumber(redis.call('HGET', KEYS[8], ARGV[16]) or '0')
end
local function cap_refuses(cap, spent, credits)
  return credits > 0 and cap >= 0 and spent + credits > cap
end
local function count_spend(credits)
  return redis.call('HINCRBY', KEYS[8], ARGV[16], credits)
end
`;

/**
 * KEYS: record, journal, debit marker, key bucket, (unused), pending index, (unused), monthly spend.
 * ARGV: request_id, key hash ('' for a caller bound to the key id, as an OAuth token's), operation,
 * credits, tokens, (unused), (unused), pending ms, marker ttl (s), usage key
 * prefix, usage ttl (s), at (ms), day, pending member, deadline (ms on Redis' clock), month.
 * Replies {outcome, balance, retry_after_ms, qps, burst, tokens left, seconds to full}, and after
 * the cap's step {…, cap (-1: none), month's spend}; admitted, also {…, low-balance line, its round};
 * insufficient, {…, -1, -1, -1, the line's round} (the round names a pause for credits). A debit
 * already recorded under the request id answers `already_debited` (pending or settled) or
 * `already_ended` (refunded or voided) with the balance it left and the month's figures and the
 * low-balance line as they stand, and takes nothing; a pending one's deadline is renewed from now.
 *
 * Past its deadline billing has stopped waiting and answered 503 ("nothing was charged"): a script
 * that Redis runs only then (it was stalled or paused meanwhile) is refused whole, as 'expired'.
 */
export const admitScript =
  luaScript(`${JOURNAL_AND_USAGE}${TOKEN_BUCKETS}${DEBIT_RECORD}${SPEND_CAP}${LOW_BALANCE_LINE}
if now > tonumber(ARGV[15]) then return {'expired'} end
local record = redis.call('HMGET', KEYS[1], 'balance', 'revoked', 'hash', 'qps', 'burst')
if not record[1] then return {'unknown_key'} end
if ARGV[2] ~= '' and record[3] and record[3] ~= '' and record[3] ~= ARGV[2] then return {'unknown_key'} end
if record[2] == '1' then return {'revoked'} end
local balance, qps, burst = tonumber(record[1]), tonumber(record[4]), tonumber(record[5])
local credits, wanted = tonumber(ARGV[4]), tonumber(ARGV[5])
-- Each step below either refuses (returning, with nothing taken by the steps after it) or takes its
-- share; a new kind of limit is one more step before the debit.
if credits > 0 then
  local prior = read_debit(KEYS[3])
  if prior then
    local live = prior.state == 'pending' or prior.state == 'settled'
    -- Asked again while pending, the debit's owner (or the replica that took its work over) is
    -- alive: its deadline moves on, so the voider does not return a page that is being fetched.
    if prior.state == 'pending' then
      redis.call('ZADD', KEYS[6], 'XX', 'GT', now + tonumber(ARGV[8]), ARGV[14])
    end
    local cap, spent = month_spend()
    return {live and 'already_debited' or 'already_ended', prior.balance, 0, qps, burst, 0, 0, cap, spent,
      low_balance_line(), low_balance_round()}
  end
end
local tokens = bucket_level(KEYS[4], qps, burst)
if tokens < wanted then
  return {'rate_limited', balance, wait_ms(tokens, wanted, qps), qps, burst, math.floor(tokens),
    seconds_to_full(tokens, qps, burst)}
end
tokens = tokens - wanted
bucket_store(KEYS[4], tokens, qps, burst)
local left, full = math.floor(tokens), seconds_to_full(tokens, qps, burst)
if balance < credits then
  return {'insufficient', balance, 0, qps, burst, left, full, -1, -1, -1, low_balance_round()}
end
local cap, spent = month_spend()
if cap_refuses(cap, spent, credits) then
  return {'spend_cap_reached', balance, 0, qps, burst, left, full, cap, spent}
end
if credits == 0 then return {'admitted', balance, 0, qps, burst, left, full, cap, spent, low_balance_line(), low_balance_round()} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -credits)
spent = count_spend(credits)
redis.call('HSET', KEYS[1], 'last_used_at', ARGV[12])
journal('debit', -credits, balance, ARGV[1], ARGV[12])
count(ARGV[10] .. ARGV[13], 'charged:' .. ARGV[3], 1, ARGV[11])
write_debit(KEYS[3], { state = 'pending', balance = balance, operation = ARGV[3], day = ARGV[13],
  credits = credits }, ARGV[9])
redis.call('ZADD', KEYS[6], now + tonumber(ARGV[8]), ARGV[14])
return {'admitted', balance, 0, qps, burst, left, full, cap, spent, low_balance_line(), low_balance_round()}
`);

/**
 * KEYS: debit record, pending index. ARGV: pending member. A pending debit becomes final. Replies
 * how the debit ends (DEBIT_ENDS): `settled` now, else as an earlier end left it, `expired` when no
 * record is held.
 */
export const settleScript = luaScript(`${DEBIT_RECORD}
redis.call('ZREM', KEYS[2], ARGV[1])
local debit = read_debit(KEYS[1])
if not debit then return 'expired' end
if debit.state ~= 'pending' then return ended_as(debit.state) end
debit.state = 'settled'
write_debit(KEYS[1], debit)
return 'settled'
`);

/**
 * KEYS: record, journal, debit record, pending index, monthly spend. ARGV: request_id, at (ms),
 * record ttl (s), usage key prefix, usage ttl (s), pending member, final state ('refunded' or
 * 'voided').
 * Gives a pending debit's credits back, counted as refunded on the day and operation it was charged,
 * and taken off the spend of that day's month (which its debit added them to).
 * Replies {end, balance} (balance -1 when the key has no record), and 1 after them when this call
 * ended the debit: the final state given now, or how an earlier end left it (DEBIT_ENDS), or `expired` (no record held: nothing to give back, whoever
 * asks).
 */
export const refundScript = luaScript(`${JOURNAL_AND_USAGE}${DEBIT_RECORD}
redis.call('ZREM', KEYS[4], ARGV[6])
local function current() return tonumber(redis.call('HGET', KEYS[1], 'balance') or '-1') end
local debit = read_debit(KEYS[3])
if not debit then return {'expired', current()} end
if debit.state ~= 'pending' then return {ended_as(debit.state), current()} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {'expired', -1} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', debit.credits)
journal('refund', debit.credits, balance, ARGV[1], ARGV[2])
count(ARGV[4] .. debit.day, 'refunded:' .. debit.operation, 1, ARGV[5])
redis.call('HINCRBY', KEYS[5], string.sub(debit.day, 1, 7), -debit.credits)
debit.state, debit.balance = ARGV[7], balance
write_debit(KEYS[3], debit, ARGV[3])
return {ARGV[7], balance, 1}
`);

/** KEYS: pending index. ARGV: most members. The pending debits whose deadline passed, by Redis' clock. */
export const dueDebitsScript = luaScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
`);

export const ADMISSION_SCRIPTS = [admitScript, settleScript, refundScript, dueDebitsScript];
