/**
 * The scripts of admission and of a pending debit's end (docs/architecture.md, "admission"): admit,
 * settle, refund (also used to void a debit whose deadline passed) and the sweep that finds those.
 *
 * A debit record (lua-helpers.ts, DEBIT_RECORD: its one reader and writer) records one request's
 * debit. Its state moves once from `pending` to `settled` (the answer reached the client), `refunded`
 * (the request failed, or the client left) or `voided` (nobody settled it in time); only a pending
 * debit can be refunded, so every refund is applied exactly once.
 *
 * Admission touches the key's slot and two global keys (the reserve bucket and the pending index):
 * fine on one Redis primary, which the operator guide prescribes; see there for Redis Cluster.
 */

import { luaScript } from "@rda/service-kit";
import { DEBIT_RECORD, JOURNAL_AND_USAGE, TOKEN_BUCKETS } from "./lua-helpers.ts";

/**
 * KEYS: record, journal, debit marker, key bucket, reserve bucket, pending index.
 * ARGV: request_id, key hash ('' for a caller bound to the key id, as an OAuth token's), operation,
 * credits, tokens, reserve qps (0 = no reserve), reserve burst, pending ms, marker ttl (s), usage key
 * prefix, usage ttl (s), at (ms), day, pending member, deadline (ms on Redis' clock).
 * Replies {outcome, balance, retry_after_ms, qps, burst, tokens left, seconds to full}.
 *
 * Past its deadline billing has stopped waiting and answered 503 ("nothing was charged"): a script
 * that Redis runs only then (it was stalled or paused meanwhile) is refused whole, as 'expired'.
 */
export const admitScript = luaScript(`${JOURNAL_AND_USAGE}${TOKEN_BUCKETS}${DEBIT_RECORD}
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
  if prior then return {'admitted', prior.balance, 0, qps, burst, 0, 0} end
end
local tokens = bucket_level(KEYS[4], qps, burst)
if tokens < wanted then
  return {'rate_limited', balance, wait_ms(tokens, wanted, qps), qps, burst, math.floor(tokens),
    seconds_to_full(tokens, qps, burst)}
end
tokens = tokens - wanted
bucket_store(KEYS[4], tokens, qps, burst)
local left, full = math.floor(tokens), seconds_to_full(tokens, qps, burst)
if balance < credits then return {'insufficient', balance, 0, qps, burst, left, full} end
local reserve_qps = tonumber(ARGV[6])
if reserve_qps > 0 then
  local reserve_burst = tonumber(ARGV[7])
  local reserve = bucket_level(KEYS[5], reserve_qps, reserve_burst)
  if reserve < 1 then
    return {'reserve_exhausted', balance, wait_ms(reserve, 1, reserve_qps), qps, burst, left, full}
  end
  bucket_store(KEYS[5], reserve - 1, reserve_qps, reserve_burst)
end
if credits == 0 then return {'admitted', balance, 0, qps, burst, left, full} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -credits)
redis.call('HSET', KEYS[1], 'last_used_at', ARGV[12])
journal('debit', -credits, balance, ARGV[1], ARGV[12])
count(ARGV[10] .. ARGV[13], 'charged:' .. ARGV[3], 1, ARGV[11])
write_debit(KEYS[3], { state = 'pending', balance = balance, operation = ARGV[3], day = ARGV[13],
  credits = credits }, ARGV[9])
redis.call('ZADD', KEYS[6], now + tonumber(ARGV[8]), ARGV[14])
return {'admitted', balance, 0, qps, burst, left, full}
`);

/**
 * KEYS: debit record, pending index. ARGV: pending member. A pending debit becomes final. Replies 1
 * settled, 0 already ended (settled, refunded or voided), -1 no such debit recorded.
 */
export const settleScript = luaScript(`${DEBIT_RECORD}
redis.call('ZREM', KEYS[2], ARGV[1])
local debit = read_debit(KEYS[1])
if not debit then return -1 end
if debit.state ~= 'pending' then return 0 end
debit.state = 'settled'
write_debit(KEYS[1], debit)
return 1
`);

/**
 * KEYS: record, journal, debit record, pending index. ARGV: request_id, at (ms), record ttl (s), usage
 * key prefix, usage ttl (s), pending member, final state ('refunded' or 'voided').
 * Gives a pending debit's credits back, counted as refunded on the day and operation it was charged.
 * Replies {outcome, balance} (balance -1 when the key has no record); the outcome is `refunded`,
 * `already_ended` (settled, refunded or voided before) or `unknown_debit` (no such debit recorded:
 * nothing to give back, whoever asks).
 */
export const refundScript = luaScript(`${JOURNAL_AND_USAGE}${DEBIT_RECORD}
redis.call('ZREM', KEYS[4], ARGV[6])
local function current() return tonumber(redis.call('HGET', KEYS[1], 'balance') or '-1') end
local debit = read_debit(KEYS[3])
if not debit then return {'unknown_debit', current()} end
if debit.state ~= 'pending' then return {'already_ended', current()} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown_debit', -1} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', debit.credits)
journal('refund', debit.credits, balance, ARGV[1], ARGV[2])
if debit.day ~= '' then count(ARGV[4] .. debit.day, 'refunded:' .. debit.operation, 1, ARGV[5]) end
debit.state, debit.balance = ARGV[7], balance
write_debit(KEYS[3], debit, ARGV[3])
return {'refunded', balance}
`);

/** KEYS: pending index. ARGV: most members. The pending debits whose deadline passed, by Redis' clock. */
export const dueDebitsScript = luaScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
`);

export const ADMISSION_SCRIPTS = [admitScript, settleScript, refundScript, dueDebitsScript];
