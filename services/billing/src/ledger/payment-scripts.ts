/**
 * The ledger's scripts for card payments. Each runs in the paid key's slot and decides everything
 * about one payment atomically, keyed by its payment id: the first copy of a payment credits it, a
 * later copy (re-delivery, a second portal replica, a second billing replica) finds the record and
 * changes nothing; refunds and disputes carry cumulative amounts, so only their growth takes credits
 * back, in whatever order they arrive.
 */

import { luaScript } from "@rda/service-kit";
import { JOURNAL_AND_USAGE } from "./lua-helpers.ts";

/**
 * Takes back the credits bought by the refunded and disputed part of the payment (KEYS[3]) that have
 * not been taken back yet, as far as the balance allows, never below 0. `reversed_credits` remembers
 * how many credits the reversals so far stood for, so each cent going back is counted once; what the
 * balance could not cover is forgiven, not owed.
 */
const SETTLE_REVERSAL = `
local function settle_reversal(payment_id, at)
  local p = redis.call('HMGET', KEYS[3], 'amount_cents', 'credits', 'refunded_cents', 'disputed_cents', 'reversed_credits')
  local amount, credits = tonumber(p[1]), tonumber(p[2])
  if not credits or not amount or amount <= 0 then return 0 end
  local back = (tonumber(p[3]) or 0) + (tonumber(p[4]) or 0)
  if back > amount then back = amount end
  local wanted = math.floor(credits * back / amount)
  local done = tonumber(p[5]) or 0
  if wanted <= done then return 0 end
  redis.call('HSET', KEYS[3], 'reversed_credits', wanted)
  local balance = tonumber(redis.call('HGET', KEYS[1], 'balance'))
  local remove = math.min(wanted - done, balance)
  if remove <= 0 then return 0 end
  balance = redis.call('HINCRBY', KEYS[1], 'balance', -remove)
  journal('payment_reversal', -remove, balance, payment_id, at)
  redis.call('HINCRBY', KEYS[3], 'credits_removed', remove)
  return remove
end
`;

/**
 * KEYS: key record, journal, payment, the key's payments, usage day. ARGV: payment id, account id,
 * session id, amount cents, credits, currency, paid at (epoch ms), receipt url ('' for none), now,
 * usage ttl (s), key id. → {outcome, credits, credits removed, balance}.
 */
export const applyPaymentScript = luaScript(`${JOURNAL_AND_USAGE}${SETTLE_REVERSAL}
local record = redis.call('HMGET', KEYS[1], 'balance', 'account_id')
if not record[1] or (record[2] or '') ~= ARGV[2] then return {'not_found'} end
if ARGV[8] ~= '' then redis.call('HSETNX', KEYS[3], 'receipt_url', ARGV[8]) end
local prior = redis.call('HGET', KEYS[3], 'credits')
if prior then return {'already_applied', tonumber(prior), 0, tonumber(record[1])} end
local balance = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[5])
redis.call('HSET', KEYS[1], 'last_topup_credits', ARGV[5])
redis.call('HINCRBY', KEYS[1], 'topups', 1)
journal('topup', ARGV[5], balance, ARGV[1], ARGV[9])
count(KEYS[5], 'credits_bought', ARGV[5], ARGV[10])
count(KEYS[5], 'paid_cents', ARGV[4], ARGV[10])
redis.call('HSET', KEYS[3], 'key_id', ARGV[11], 'account_id', ARGV[2], 'session_id', ARGV[3],
  'amount_cents', ARGV[4], 'credits', ARGV[5], 'currency', ARGV[6], 'paid_at', ARGV[7])
redis.call('ZADD', KEYS[4], 'NX', ARGV[9], ARGV[1])
local removed = settle_reversal(ARGV[1], ARGV[9])
return {'applied', tonumber(ARGV[5]), removed, tonumber(redis.call('HGET', KEYS[1], 'balance'))}
`);

/**
 * KEYS: key record, journal, payment, the key's payments. ARGV: payment id, account id, the field
 * of this kind ('refunded_cents' or 'disputed_cents'), its cumulative amount, now, key id, receipt
 * url ('' for none). → {outcome, credits removed, balance}, and for `unchanged` also {…, credits
 * it removed, balance after it} when this very reversal (kind and amount) was applied before.
 *
 * The payment record keeps what each applied reversal did (`<field>:<amount>` → "removed:balance"):
 * a redelivery changes nothing but answers those figures, so the account's notice of it, if the
 * mail failed the first time, is still sent, with the figures of the reversal itself.
 */
export const reversePaymentScript = luaScript(`${JOURNAL_AND_USAGE}${SETTLE_REVERSAL}
local record = redis.call('HMGET', KEYS[1], 'balance', 'account_id')
if not record[1] or (record[2] or '') ~= ARGV[2] then return {'not_found'} end
if ARGV[7] ~= '' then redis.call('HSETNX', KEYS[3], 'receipt_url', ARGV[7]) end
local before = tonumber(redis.call('HGET', KEYS[3], ARGV[3]) or '0')
local applied_as = ARGV[3] .. ':' .. ARGV[4]
if tonumber(ARGV[4]) <= before then
  local then_ = redis.call('HGET', KEYS[3], applied_as)
  if not then_ then return {'unchanged', 0, tonumber(record[1])} end
  local removed, balance = string.match(then_, '^(%d+):(%d+)$')
  return {'unchanged', 0, tonumber(record[1]), tonumber(removed), tonumber(balance)}
end
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4], 'key_id', ARGV[6], 'account_id', ARGV[2])
redis.call('ZADD', KEYS[4], 'NX', ARGV[5], ARGV[1])
if not redis.call('HGET', KEYS[3], 'credits') then return {'recorded', 0, tonumber(record[1])} end
local removed = settle_reversal(ARGV[1], ARGV[5])
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance'))
redis.call('HSET', KEYS[3], applied_as, removed .. ':' .. balance)
return {'reversed', removed, balance}
`);

export const PAYMENT_SCRIPTS = [applyPaymentScript, reversePaymentScript];
