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
