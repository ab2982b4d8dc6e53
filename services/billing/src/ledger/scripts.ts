/**
 * The ledger's Lua scripts for keys and top-ups (admission and debits: admission-scripts.ts). Each
 * touches only one API key's keys (one hash slot) or only one account's.
 */

import { luaScript } from "@rda/service-kit";
import { JOURNAL_AND_USAGE } from "./lua-helpers.ts";

/**
 * KEYS: record, journal, usage day. ARGV: label, qps, burst, created_at, credits, request_id, at,
 * account_id ('' for none), key hash, usage ttl (s).
 */
export const createKeyScript = luaScript(`${JOURNAL_AND_USAGE}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'label', ARGV[1], 'qps', ARGV[2], 'burst', ARGV[3], 'revoked', '0',
  'created_at', ARGV[4], 'balance', ARGV[5], 'account_id', ARGV[8], 'hash', ARGV[9])
journal('grant', ARGV[5], ARGV[5], ARGV[6], ARGV[7])
count(KEYS[3], 'credits_granted', ARGV[5], ARGV[10])
return 1
`);

/**
 * KEYS: the account's key counts. ARGV: max active, max created. Claims room for one more key, or
 * says which limit refuses it; the counts change only when there is room.
 */
export const claimAccountKeyScript = luaScript(`
local active = tonumber(redis.call('HGET', KEYS[1], 'active') or '0')
local created = tonumber(redis.call('HGET', KEYS[1], 'created') or '0')
if active >= tonumber(ARGV[1]) then return {'limit_reached', 'active', tonumber(ARGV[1])} end
if created >= tonumber(ARGV[2]) then return {'limit_reached', 'lifetime', tonumber(ARGV[2])} end
redis.call('HINCRBY', KEYS[1], 'active', 1)
redis.call('HINCRBY', KEYS[1], 'created', 1)
return {'claimed'}
`);

/** KEYS: the account's key counts. ARGV: active delta, created delta. Never below 0. */
export const releaseAccountKeyScript = luaScript(`
for i, field in ipairs({'active', 'created'}) do
  local value = tonumber(redis.call('HGET', KEYS[1], field) or '0') + tonumber(ARGV[i])
  if value < 0 then value = 0 end
  redis.call('HSET', KEYS[1], field, value)
end
return 1
`);

/**
 * KEYS: record, journal, top-up marker, usage day. ARGV: credits, request_id, at, marker ttl (s),
 * usd cents, usage ttl (s), most credits a balance may hold. A retried top-up (same request id)
 * returns its first result and adds nothing; one that would take the balance past the most is
 * refused with the balance as it is.
 */
export const topUpScript = luaScript(`${JOURNAL_AND_USAGE}
local revoked = redis.call('HGET', KEYS[1], 'revoked')
if not revoked then return {'not_found'} end
local prior = redis.call('GET', KEYS[3])
if prior then
  local added, balance = string.match(prior, '^(%d+):(%d+)$')
  return {'ok', tonumber(added), tonumber(balance)}
end
if revoked == '1' then return {'revoked'} end
local current = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
if current + tonumber(ARGV[1]) > tonumber(ARGV[7]) then return {'balance_limit', 0, current} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])
redis.call('HSET', KEYS[1], 'last_topup_credits', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'topups', 1)
journal('topup', ARGV[1], balance, ARGV[2], ARGV[3])
count(KEYS[4], 'credits_bought', ARGV[1], ARGV[6])
count(KEYS[4], 'paid_cents', ARGV[5], ARGV[6])
redis.call('SET', KEYS[3], ARGV[1] .. ':' .. balance, 'EX', ARGV[4])
return {'ok', tonumber(ARGV[1]), balance}
`);

/**
 * KEYS: record. ARGV: revoked_at, account_id ('' = any owner). Returns the outcome and the key's
 * account, so a revocation frees a place in that account's active keys exactly once.
 */
export const revokeScript = luaScript(`
local record = redis.call('HMGET', KEYS[1], 'revoked', 'account_id')
if not record[1] then return {'not_found', ''} end
local owner = record[2] or ''
if ARGV[2] ~= '' and owner ~= ARGV[2] then return {'not_found', ''} end
if record[1] == '1' then return {'already_revoked', owner} end
redis.call('HSET', KEYS[1], 'revoked', '1', 'revoked_at', ARGV[1])
return {'revoked', owner}
`);

/**
 * KEYS: record. ARGV: new key hash, account_id ('' = any owner). Points the key at a new secret and
 * returns the old secret's hash, whose lookup entry the caller then deletes.
 */
export const rotateScript = luaScript(`
local record = redis.call('HMGET', KEYS[1], 'revoked', 'account_id', 'hash')
if not record[1] then return {'not_found', ''} end
if ARGV[2] ~= '' and (record[2] or '') ~= ARGV[2] then return {'not_found', ''} end
if record[1] == '1' then return {'revoked', ''} end
redis.call('HSET', KEYS[1], 'hash', ARGV[1])
return {'rotated', record[3] or ''}
`);

/**
 * KEYS: record, journal, monthly spend. The balance, the id of the last journal entry and the spend
 * of every month read atomically, so `ledger verify` can re-derive both from the journal up to that
 * entry while debits continue. Replies {balance, last id, month, spent, month, spent, …}.
 */
export const snapshotScript = luaScript(`
local balance = redis.call('HGET', KEYS[1], 'balance')
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local id = '0-0'
if last[1] then id = last[1][1] end
local reply = {balance or '', id}
for _, value in ipairs(redis.call('HGETALL', KEYS[3])) do table.insert(reply, value) end
return reply
`);

export const KEY_SCRIPTS = [
  createKeyScript,
  claimAccountKeyScript,
  releaseAccountKeyScript,
  topUpScript,
  revokeScript,
  rotateScript,
  snapshotScript,
];
