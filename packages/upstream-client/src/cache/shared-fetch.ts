/**
 * One upstream request as the whole cluster sees it: served from the shared cache when an entry is
 * young enough for both its freshness class and the caller's own bound (`Cache-Control`); otherwise
 * fetched once, by whichever replica claims it first, while every other replica asking the same
 * request waits for that fetch's outcome and gets the very same answer. Cacheable answers are stored
 * (freshness.ts decides which, and for how long).
 *
 * The cache is an optimisation, never a dependency: when its Redis cannot be reached, the request is
 * fetched directly (still paced, still billed and refunded as always).
 */
import { randomUUID } from "node:crypto";
import {
  cacheCall,
  type Logger,
  luaScript,
  type Redis,
  renewWhileHeld,
  sha256Hex,
  type UpstreamCacheKeys,
} from "@rda/service-kit";
import { classifyAnswer } from "../retry-policy.ts";
import type { UpstreamBody, UpstreamQuery, UpstreamResult } from "../types.ts";
import { CLAIM_FETCH, FINISH_FETCH, RENEW_FETCH, STORE_ENTRY, WATCH_FETCH } from "./cache-scripts.ts";
import { type FreshnessBounds, judgeFreshness } from "./freshness.ts";

export interface SharedFetchSettings {
  readonly store: SharedCacheStore;
  readonly bounds: FreshnessBounds;
  readonly logger?: Logger;
}

export interface SharedFetchRequest {
  /** The upstream path without the base URL's prefix (freshness rules are by path). */
  readonly path: string;
  readonly query: UpstreamQuery;
  /** Path and query as sent: the key of the cache and of the claim. */
  readonly requestPath: string;
  /** The caller's bound in seconds (`max-age`; 0 for `no-cache`); none: the class's bound alone. */
  readonly maxAgeS: number | undefined;
  /**
   * Epoch ms until which a caller may wait on another replica's fetch of the same request: its own
   * deadline. A fetch under way ends by its own deadline, no later than a caller that came after it;
   * a replica that died holding one loses its claim within a lease, and the caller fetches itself.
   */
  readonly waitUntilMs: number;
}

export type FetchSource = "cache" | "upstream" | "joined";

export interface Fetched {
  readonly result: UpstreamResult;
  /** Epoch ms the upstream produced this answer (now, for a fetch just made). */
  readonly fetchedAtMs: number;
  readonly source: FetchSource;
  /** How long after `fetchedAtMs` a cached answer may be served (known for a cache hit). */
  readonly maxAgeS?: number;
}

/** How often a waiting replica looks for the outcome of the fetch it waits on. */
const WATCH_EVERY_MS = 40;
/** How long a fetch's outcome stays readable for its waiters. */
const OUTCOME_TTL_MS = 5_000;
/**
 * A fetch's claim lasts this long unless its holder renews it (every third of it, while the fetch
 * runs): short, so the waiters of a replica that died mid-fetch claim it again well within their
 * deadline instead of waiting out the dead one's; long enough that a live holder's renewal late by
 * two thirds of it (a busy event loop) still lands in time.
 */
const CLAIM_LEASE_MS = 1_000;

/** The cache lookup alone; undefined on a miss, a bypass (`no-cache`) or an unreachable cache. */
export async function readCached(
  settings: SharedFetchSettings,
  request: SharedFetchRequest,
): Promise<{ fetched: Fetched | undefined; lookup: "hit" | "miss" | "bypass" | "error" }> {
  if (request.maxAgeS === 0) return { fetched: undefined, lookup: "bypass" };
  let entry: CacheEntry | undefined;
  try {
    entry = await settings.store.read(sha256Hex(request.requestPath));
  } catch (error) {
    settings.logger?.warn({ err: String(error) }, "response cache unreachable: fetching upstream");
    return { fetched: undefined, lookup: "error" };
  }
  if (entry === undefined) return { fetched: undefined, lookup: "miss" };
  const boundS = Math.min(entry.maxAgeS, request.maxAgeS ?? Number.POSITIVE_INFINITY);
  if (Date.now() - entry.fetchedAtMs > boundS * 1000) return { fetched: undefined, lookup: "miss" };
  const body = parseBody(entry.body);
  if (body === undefined) return { fetched: undefined, lookup: "miss" };
  const result: UpstreamResult = { outcome: "ok", body, query: entry.query, attempts: 0, retries: 0 };
  const fetched = {
    result,
    fetchedAtMs: entry.fetchedAtMs,
    source: "cache" as const,
    maxAgeS: entry.maxAgeS,
  };
  return { fetched, lookup: "hit" };
}

/**
 * Fetches once across the cluster: the replica that claims the request fetches it (and stores it
 * when cacheable), the others wait for its outcome. `fetchUpstream` is the paced call with retries.
 */
export async function fetchOnce(
  settings: SharedFetchSettings,
  request: SharedFetchRequest,
  fetchUpstream: () => Promise<UpstreamResult>,
): Promise<Fetched> {
  const hash = sha256Hex(request.requestPath);
  const token = randomUUID();
  // A waiter takes only an answer produced after it asked: one that ended before is either in the
  // cache (if it may be served again at all) or must not be served again (a failure, an empty page).
  const oldestAcceptedMs = Date.now();
  const { store, logger } = settings;
  for (;;) {
    let holder: string;
    try {
      holder = await store.claim(hash, token, CLAIM_LEASE_MS);
    } catch (error) {
      logger?.warn({ err: String(error) }, "response cache unreachable: fetching upstream uncoalesced");
      return fetchedNow(await fetchUpstream(), "upstream");
    }
    if (holder === "") return lead(settings, request, hash, token, fetchUpstream);
    const waited = await waitFor(store, hash, holder, request.waitUntilMs, oldestAcceptedMs).catch(
      () => "unreachable" as const,
    );
    if (waited === "unreachable" || waited === "too_long") {
      return fetchedNow(await fetchUpstream(), "upstream");
    }
    if (waited !== "gone") return waited;
    // The holder ended without sharing an outcome (too large, or it died): claim it again.
  }
}

async function lead(
  settings: SharedFetchSettings,
  request: SharedFetchRequest,
  hash: string,
  token: string,
  fetchUpstream: () => Promise<UpstreamResult>,
): Promise<Fetched> {
  let fetched: Fetched | undefined;
  const stopRenewing = renewWhileHeld(
    CLAIM_LEASE_MS,
    () => settings.store.renew(hash, token, CLAIM_LEASE_MS),
    (error) => settings.logger?.warn({ err: String(error) }, "response cache: fetch claim not renewed"),
  );
  try {
    fetched = fetchedNow(await fetchUpstream(), "upstream");
    return fetched;
  } finally {
    stopRenewing();
    // Before answering, so the next identical call finds the entry rather than this claim; keeping
    // and sharing the answer must never lose it for this caller, so a failure here is only logged.
    await share(settings, request, hash, token, fetched).catch((error: unknown) =>
      settings.logger?.warn({ err: String(error) }, "response cache: could not store or share an answer"),
    );
  }
}

async function share(
  settings: SharedFetchSettings,
  request: SharedFetchRequest,
  hash: string,
  token: string,
  fetched: Fetched | undefined,
): Promise<void> {
  const { store } = settings;
  if (fetched === undefined) {
    await store.finish(hash, token, "", OUTCOME_TTL_MS);
    return;
  }
  const { result, fetchedAtMs } = fetched;
  const maxAgeS = servableFor(settings, request, fetched);
  if (result.outcome === "ok" && maxAgeS !== undefined) {
    const body = bodyText(result.body);
    await store.store(hash, { fetchedAtMs, maxAgeS, query: result.query, body });
  }
  const outcome = outcomeText(fetched);
  const shareable = Buffer.byteLength(outcome) <= store.limits.maxEntryBytes;
  await store.finish(hash, token, shareable ? outcome : "", OUTCOME_TTL_MS);
}

/**
 * How long after it was produced an answer may be served again (freshness.ts), or undefined: never.
 * A cache hit carries its entry's bound; a fetched or joined answer is judged as it is stored.
 */
export function servableFor(
  settings: SharedFetchSettings,
  request: SharedFetchRequest,
  fetched: Fetched,
): number | undefined {
  if (fetched.maxAgeS !== undefined) return fetched.maxAgeS;
  const { result, fetchedAtMs } = fetched;
  if (result.outcome !== "ok") return undefined;
  const answer = {
    path: request.path,
    query: request.query,
    answeredQuery: result.query,
    data: result.body.data,
    onlyData: result.body.dataBytes !== undefined,
  };
  const freshness = judgeFreshness(answer, settings.bounds, fetchedAtMs);
  return freshness.cacheable ? freshness.maxAgeS : undefined;
}

async function waitFor(
  store: SharedCacheStore,
  hash: string,
  holder: string,
  giveUpAt: number,
  oldestAcceptedMs: number,
): Promise<Fetched | "gone" | "too_long"> {
  for (;;) {
    const seen = await store.watch(hash, holder);
    if (seen.outcome !== undefined) {
      const fetched = parseOutcome(seen.outcome);
      // Strictly after: an answer stamped in the millisecond this caller asked may be one that had
      // already been shared before it asked (a no-cache call right after a fetch), not one it waited for.
      return fetched !== undefined && fetched.fetchedAtMs > oldestAcceptedMs ? fetched : "gone";
    }
    if (!seen.claimed) return "gone";
    if (Date.now() + WATCH_EVERY_MS > giveUpAt) return "too_long";
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
  }
}

function fetchedNow(result: UpstreamResult, source: FetchSource): Fetched {
  return { result, fetchedAtMs: Date.now(), source };
}

/** `{"data": …}` again: the upstream's own bytes of data when it sent nothing else. */
function bodyText(body: UpstreamBody): string {
  if (body.dataBytes !== undefined) return `{"data":${Buffer.from(body.dataBytes).toString("utf8")}}`;
  return JSON.stringify({ data: body.data });
}

function parseBody(text: string): UpstreamBody | undefined {
  const verdict = classifyAnswer(200, undefined, text);
  return verdict.kind === "ok" ? verdict.body : undefined;
}

/** A fetch's outcome for its waiters: the result without its body, a newline, then the body. */
function outcomeText({ result, fetchedAtMs }: Fetched): string {
  if (result.outcome !== "ok") return `${JSON.stringify({ at: fetchedAtMs, result })}\n`;
  const { body, ...rest } = result;
  return `${JSON.stringify({ at: fetchedAtMs, result: rest })}\n${bodyText(body)}`;
}

function parseOutcome(text: string): Fetched | undefined {
  const split = text.indexOf("\n");
  if (split === -1) return undefined;
  try {
    const head = JSON.parse(text.slice(0, split)) as { at: number; result: UpstreamResult };
    if (head.result.outcome !== "ok") return { result: head.result, fetchedAtMs: head.at, source: "joined" };
    const body = parseBody(text.slice(split + 1));
    if (body === undefined) return undefined;
    return { result: { ...head.result, body }, fetchedAtMs: head.at, source: "joined" };
  } catch {
    return undefined;
  }
}

/**
 * The response cache and fetch claims of every adapter replica, in Redis (its own key family,
 * `upstream-cache`, and ideally its own Redis: docs/operations.md#the-response-cache). An entry is one
 * upstream answer: when it was fetched, how long it may be served, the query that answered, and the
 * body `{"data": …}`. Every entry expires by itself at its bound, and the store refuses entries once
 * the bytes of the live ones reach the cap, so the cache never grows past it even in a Redis shared
 * with the ledger.
 */
const storeEntry = luaScript(STORE_ENTRY);
const claimFetch = luaScript(CLAIM_FETCH);
const renewFetch = luaScript(RENEW_FETCH);
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
  /** Extends the claim `token` holds by `leaseMs`, if it still holds it. */
  renew(hash: string, token: string, leaseMs: number): Promise<void>;
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
      const text = await cacheCall(redis.get(keys.entry(hash)));
      return text === null ? undefined : parseEntry(text);
    },
    async store(hash, entry) {
      const value = `${JSON.stringify({ at: entry.fetchedAtMs, max: entry.maxAgeS, q: entry.query })}\n${entry.body}`;
      return cacheCall(storeCapped(keys.entry(hash), Buffer.from(value), entry.maxAgeS * 1000));
    },
    async storeAnswer(requestHash, frame, ttlMs) {
      if (ttlMs <= 0) return false;
      return cacheCall(storeCapped(keys.answer(requestHash), Buffer.from(frame), Math.ceil(ttlMs)));
    },
    // Waited for in full: a claim that landed unseen would hold others waiting on a fetch never shared.
    async claim(hash, token, leaseMs) {
      return String(await claimFetch.run(redis, [keys.lock(hash)], [token, leaseMs]));
    },
    async renew(hash, token, leaseMs) {
      await cacheCall(renewFetch.run(redis, [keys.lock(hash)], [token, leaseMs]));
    },
    async finish(hash, token, outcome, outcomeTtlMs) {
      const scriptKeys = [keys.lock(hash), keys.outcome(hash, token)];
      await cacheCall(finishFetch.run(redis, scriptKeys, [token, outcome, outcomeTtlMs]));
    },
    async watch(hash, token) {
      const scriptKeys = [keys.lock(hash), keys.outcome(hash, token)];
      const [outcome, claimed] = (await cacheCall(watchFetch.run(redis, scriptKeys, [token]))) as [
        string,
        number,
      ];
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
