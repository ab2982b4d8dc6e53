/**
 * The response cache and fetch claims of every adapter replica, in Redis (its own key family,
 * `upstream-cache`, and ideally its own Redis: docs/operations.md#the-response-cache). An entry is one
 * upstream answer: when it was fetched, how long it may be served, the query that answered, and the
 * body `{"data": …}`. Every entry expires by itself at its bound, and the store refuses entries once
 * the bytes of the live ones reach the cap, so the cache never grows past it even in a Redis shared
 * with the ledger.
 */
import { luaScript, type Redis, type UpstreamCacheKeys } from "@rda/service-kit";
import type { UpstreamQuery } from "../types.ts";
import { CLAIM_FETCH, FINISH_FETCH, STORE_ENTRY, WATCH_FETCH } from "./cache-scripts.ts";

const storeEntry = luaScript(STORE_ENTRY);
const claimFetch = luaScript(CLAIM_FETCH);
const finishFetch = luaScript(FINISH_FETCH);
const watchFetch = luaScript(WATCH_FETCH);

export interface CacheEntry {
  /** Epoch ms the upstream answered. */
  readonly fetchedAtMs: number;
  /** The longest this answer may be served, by its freshness class (freshness.ts). */
  readonly maxAgeS: number;
  readonly query: UpstreamQuery;
  /** `{"data": …}` as JSON text. */
  readonly body: string;
}

export interface CacheLimits {
  /** Bytes of live entries, all together (CACHE_MAX_BYTES). */
  readonly maxBytes: number;
  /** Bytes of one entry; a larger answer is not cached (CACHE_MAX_ENTRY_BYTES). */
  readonly maxEntryBytes: number;
  /** The longest bound of any class: how far ahead the byte counters reach. */
  readonly longestTtlS: number;
}

/** Redis' own cost of a key beyond its bytes, roughly: counted so many tiny entries still add up. */
const ENTRY_OVERHEAD_BYTES = 100;

export interface SharedCacheStore {
  read(hash: string): Promise<CacheEntry | undefined>;
  /** False when the entry was too large or the cache is full. */
  store(hash: string, entry: CacheEntry): Promise<boolean>;
  /**
   * Keeps an operation's final answer (its reply frame) for `ttlMs`, under the same caps as the
   * entries; false when it was too large or the cache is full.
   */
  storeAnswer(requestHash: string, frame: Uint8Array, ttlMs: number): Promise<boolean>;
  /** "" when this caller now holds the fetch of `hash`, else the token of the caller that does. */
  claim(hash: string, token: string, leaseMs: number): Promise<string>;
  /** Shares the outcome (text, "" for none) with the waiters for `outcomeTtlMs`, and ends the claim. */
  finish(hash: string, token: string, outcome: string, outcomeTtlMs: number): Promise<void>;
  /** The outcome of the fetch `token` holds, or whether it is still under way. */
  watch(hash: string, token: string): Promise<{ outcome: string | undefined; claimed: boolean }>;
  readonly limits: CacheLimits;
}

export function createRedisCacheStore(
  redis: Redis,
  keys: UpstreamCacheKeys,
  limits: CacheLimits,
): SharedCacheStore {
  /** One value for `ttlMs`, counted against the cap of every live value (STORE_ENTRY). */
  const storeCapped = async (key: string, value: Buffer, ttlMs: number): Promise<boolean> => {
    const cost = value.length + ENTRY_OVERHEAD_BYTES;
    if (cost > limits.maxEntryBytes) return false;
    const nowMs = Date.now();
    const nowMinute = Math.floor(nowMs / 60_000);
    const expiryMinute = Math.floor((nowMs + ttlMs) / 60_000);
    const live: string[] = [];
    for (let minute = nowMinute; minute <= nowMinute + Math.ceil(limits.longestTtlS / 60) + 1; minute++)
      live.push(keys.bytes(minute));
    // The counter lives until its minute is over: then every entry it counted has expired.
    const counterTtlMs = (expiryMinute + 1) * 60_000 - nowMs + 1_000;
    const scriptKeys = [key, keys.bytes(expiryMinute), ...live];
    const args = [value, ttlMs, cost, limits.maxBytes, counterTtlMs, nowMs, ENTRY_OVERHEAD_BYTES];
    return (await storeEntry.run(redis, scriptKeys, args)) === 1;
  };
  return {
    limits,
    async read(hash) {
      const text = await redis.get(keys.entry(hash));
      return text === null ? undefined : parseEntry(text);
    },
    async store(hash, entry) {
      const value = `${JSON.stringify({ at: entry.fetchedAtMs, max: entry.maxAgeS, q: entry.query })}\n${entry.body}`;
      return storeCapped(keys.entry(hash), Buffer.from(value), entry.maxAgeS * 1000);
    },
    async storeAnswer(requestHash, frame, ttlMs) {
      if (ttlMs <= 0) return false;
      return storeCapped(keys.answer(requestHash), Buffer.from(frame), Math.ceil(ttlMs));
    },
    async claim(hash, token, leaseMs) {
      return String(await claimFetch.run(redis, [keys.lock(hash)], [token, leaseMs]));
    },
    async finish(hash, token, outcome, outcomeTtlMs) {
      const scriptKeys = [keys.lock(hash), keys.outcome(hash, token)];
      await finishFetch.run(redis, scriptKeys, [token, outcome, outcomeTtlMs]);
    },
    async watch(hash, token) {
      const scriptKeys = [keys.lock(hash), keys.outcome(hash, token)];
      const [outcome, claimed] = (await watchFetch.run(redis, scriptKeys, [token])) as [string, number];
      return { outcome: outcome === "" ? undefined : outcome, claimed: claimed === 1 };
    },
  };
}

function parseEntry(text: string): CacheEntry | undefined {
  const split = text.indexOf("\n");
  if (split === -1) return undefined;
  try {
    const head = JSON.parse(text.slice(0, split)) as { at: number; max: number; q: UpstreamQuery };
    if (!Number.isFinite(head.at) || !Number.isFinite(head.max)) return undefined;
    return { fetchedAtMs: head.at, maxAgeS: head.max, query: head.q, body: text.slice(split + 1) };
  } catch {
    return undefined;
  }
}
