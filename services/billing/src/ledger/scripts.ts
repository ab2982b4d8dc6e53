/**
 * The ledger's Lua scripts. Every balance change writes the key record's `balance` and appends its
 * journal entry (type, delta, balance_after, request_id, at) in the same script, so the journal can
 * never disagree with the balance. Each script touches only one API key's keys (one hash slot).
 */
import { luaScript } from "./lua-script.ts";

/** Appends one journal entry; shared by the scripts below (KEYS[2] is always the journal). */
const JOURNAL = `
local function journal(kind, delta, balance, request_id, at)
  redis.call('XADD', KEYS[2], '*', 'type', kind, 'delta', delta, 'balance_after', balance,
    'request_id', request_id, 'at', at)
end
`;

/** KEYS: record, journal. ARGV: label, qps, burst, created_at, credits, request_id, at. */
export const createKeyScript = luaScript(`${JOURNAL}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'label', ARGV[1], 'qps', ARGV[2], 'burst', ARGV[3], 'revoked', '0',
  'created_at', ARGV[4], 'balance', ARGV[5])
journal('grant', ARGV[5], ARGV[5], ARGV[6], ARGV[7])
return 1
`);

/**
 * KEYS: record, journal, debit marker. ARGV: request_id, at, marker ttl (s).
 * Spec §1: the balance check is the debit; with a balance below 1 nothing changes. A request id that
 * was already debited returns its earlier result instead of debiting twice.
 */
export const debitScript = luaScript(`${JOURNAL}
local record = redis.call('HMGET', KEYS[1], 'balance', 'revoked')
if not record[1] then return {'unknown_key'} end
if record[2] == '1' then return {'revoked'} end
local prior = redis.call('GET', KEYS[3])
if prior then return {'debited', tonumber(string.match(prior, ':(%d+)$'))} end
local balance = tonumber(record[1])
if balance < 1 then return {'insufficient', balance} end
balance = redis.call('HINCRBY', KEYS[1], 'balance', -1)
journal('debit', -1, balance, ARGV[1], ARGV[2])
redis.call('SET', KEYS[3], 'debited:' .. balance, 'EX', ARGV[3])
return {'debited', balance}
`);

/**
 * KEYS: record, journal, debit marker. ARGV: request_id, at, marker ttl (s).
 * The marker's state machine makes refunds exactly-once: only "debited" moves to "refunded" (+1);
 * a duplicate, a redelivery or a request that was never debited finds no "debited" marker.
 */
export const refundScript = luaScript(`${JOURNAL}
local prior = redis.call('GET', KEYS[3])
if not prior or string.sub(prior, 1, 8) ~= 'debited:' then return {'ignored'} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {'ignored'} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', 1)
journal('refund', 1, balance, ARGV[1], ARGV[2])
redis.call('SET', KEYS[3], 'refunded:' .. balance, 'EX', ARGV[3])
return {'refunded', balance}
`);

/**
 * KEYS: record, journal, top-up marker. ARGV: credits, request_id, at, marker ttl (s).
 * A retried top-up (same request id) returns its first result and adds nothing.
 */
export const topUpScript = luaScript(`${JOURNAL}
local revoked = redis.call('HGET', KEYS[1], 'revoked')
if not revoked then return {'not_found'} end
local prior = redis.call('GET', KEYS[3])
if prior then
  local added, balance = string.match(prior, '^(%d+):(%d+)$')
  return {'ok', tonumber(added), tonumber(balance)}
end
if revoked == '1' then return {'revoked'} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])
journal('topup', ARGV[1], balance, ARGV[2], ARGV[3])
redis.call('SET', KEYS[3], ARGV[1] .. ':' .. balance, 'EX', ARGV[4])
return {'ok', tonumber(ARGV[1]), balance}
`);

/** KEYS: record. ARGV: revoked_at. */
export const revokeScript = luaScript(`
local revoked = redis.call('HGET', KEYS[1], 'revoked')
if not revoked then return 'not_found' end
if revoked == '1' then return 'already_revoked' end
redis.call('HSET', KEYS[1], 'revoked', '1', 'revoked_at', ARGV[1])
return 'revoked'
`);

/**
 * KEYS: record, journal. The balance and the id of the last journal entry read atomically, so
 * `ledger verify` can sum the journal up to that entry while debits continue.
 */
export const snapshotScript = luaScript(`
local balance = redis.call('HGET', KEYS[1], 'balance')
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local id = '0-0'
if last[1] then id = last[1][1] end
return {balance or '', id}
`);

export const ALL_SCRIPTS = [
  createKeyScript,
  debitScript,
  refundScript,
  topUpScript,
  revokeScript,
  snapshotScript,
];
