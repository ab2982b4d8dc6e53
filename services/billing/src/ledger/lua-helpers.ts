/**
 * Lua shared by the ledger scripts. KEYS[2] is always the key's journal where `journal` is used.
 * Every balance change appends its journal entry (type, delta, balance_after, request_id, at) and is
 * counted in the key's usage day in the same script, so neither the journal nor the usage counters
 * can disagree with the balance.
 */
export const JOURNAL_AND_USAGE = `
local function journal(kind, delta, balance, request_id, at)
  redis.call('XADD', KEYS[2], '*', 'type', kind, 'delta', delta, 'balance_after', balance,
    'request_id', request_id, 'at', at)
end
local function count(usage_key, field, n, ttl)
  redis.call('HINCRBY', usage_key, field, n)
  redis.call('EXPIRE', usage_key, ttl)
end
`;

/**
 * Token buckets on Redis' own clock, so every billing replica agrees on refill. A bucket is a hash
 * {tokens, at}; a missing one is full. It expires once it would be full again anyway.
 */
export const TOKEN_BUCKETS = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function bucket_level(key, rate, size)
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1]) or size
  local elapsed = now - (tonumber(state[2]) or now)
  if elapsed < 0 then elapsed = 0 end
  return math.min(size, tokens + elapsed * rate / 1000)
end
local function bucket_store(key, tokens, rate, size)
  redis.call('HSET', key, 'tokens', tostring(tokens), 'at', now)
  redis.call('PEXPIRE', key, math.ceil(size * 1000 / rate) + 1000)
end
local function wait_ms(tokens, wanted, rate)
  return math.ceil((wanted - tokens) * 1000 / rate)
end
local function seconds_to_full(tokens, rate, size)
  return math.ceil((size - tokens) / rate)
end
`;

/**
 * The debit record, one request's debit, and its only reader and writer. Stored as one string,
 * `<state>:<balance after>:<operation>:<day>:<credits>`, split on ':' (no field may hold one: an
 * operation id is letters, digits and '_', a day is YYYY-MM-DD). Its state moves once, from
 * `pending` to `settled`, `refunded` or `voided` (docs/architecture.md#a-debits-life).
 * `ended_as` names an ended debit as a later settle or refund finds it (DEBIT_ENDS, @rda/contracts).
 */
export const DEBIT_RECORD = `
local function read_debit(key)
  local stored = redis.call('GET', key)
  if not stored then return nil end
  local fields = {}
  for field in string.gmatch(stored .. ':', '([^:]*):') do fields[#fields + 1] = field end
  return { state = fields[1], balance = tonumber(fields[2]), operation = fields[3], day = fields[4],
    credits = tonumber(fields[5]) }
end
local function ended_as(state)
  if state == 'voided' then return 'voided' end
  return 'already_' .. state
end
local function write_debit(key, debit, ttl_seconds)
  local stored = table.concat({ debit.state, debit.balance, debit.operation, debit.day, debit.credits }, ':')
  if ttl_seconds then redis.call('SET', key, stored, 'EX', ttl_seconds)
  else redis.call('SET', key, stored, 'KEEPTTL') end
end
`;

/**
 * The key's low-balance line, for notices: the `low_balance_at` its account chose, else a tenth of
 * its last top-up, else 100 credits, read from the key's record (KEYS[1]). Every debit script (an
 * admission's, an export page's, a monitor batch's) replies with it, and billing compares it with
 * the balance before and after the debit to tell the one debit that crossed it (endpoints.ts, `crossingsOf`).
 * Its round is the key's count of top-ups (`topups`, counted by the top-up and payment scripts): a
 * top-up re-arms the line, so the next crossing is a new one and is told again, while a refund
 * lifting the balance back over it and the debit after it is the same round, told once.
 */
export const LOW_BALANCE_LINE = `
local function low_balance_line()
  local set = redis.call('HMGET', KEYS[1], 'low_balance_at', 'last_topup_credits')
  local at = tonumber(set[1] or '')
  if at then return at end
  local last = tonumber(set[2] or '')
  if last then return math.floor(last / 10) end
  return 100
end
local function low_balance_round()
  return tonumber(redis.call('HGET', KEYS[1], 'topups') or '0')
end
`;
