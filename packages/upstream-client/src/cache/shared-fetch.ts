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
import { type Logger, sha256Hex } from "@rda/service-kit";
import { classifyAnswer } from "../classify.ts";
import type { UpstreamBody, UpstreamQuery, UpstreamResult } from "../types.ts";
import { type FreshnessBounds, judgeFreshness } from "./freshness.ts";
import type { CacheEntry, SharedCacheStore } from "./redis-cache.ts";

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
  /** How long the fetch may take, retries included: the claim's lease and a waiter's patience. */
  readonly deadlineMs: number;
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
  const askedAt = Date.now();
  const giveUpAt = askedAt + request.deadlineMs;
  // A waiter takes only an answer produced after it asked: one that ended before is either in the
  // cache (if it may be served again at all) or must not be served again (a failure, an empty page).
  const oldestAcceptedMs = askedAt;
  const { store, logger } = settings;
  for (;;) {
    let holder: string;
    try {
      holder = await store.claim(hash, token, request.deadlineMs + 2_000);
    } catch (error) {
      logger?.warn({ err: String(error) }, "response cache unreachable: fetching upstream uncoalesced");
      return fetchedNow(await fetchUpstream(), "upstream");
    }
    if (holder === "") return lead(settings, request, hash, token, fetchUpstream);
    const waited = await waitFor(store, hash, holder, giveUpAt, oldestAcceptedMs).catch(
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
  try {
    fetched = fetchedNow(await fetchUpstream(), "upstream");
    return fetched;
  } finally {
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
