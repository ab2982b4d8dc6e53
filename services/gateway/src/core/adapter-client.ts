/**
 * Asks an operation's adapter with its validated parameters through service-kit's one adapter
 * caller (`callAdapter`), and says what each outcome means to the gateway's caller. The data bytes
 * are handed on untouched. Outcomes map as
 * architecture.md says: bad_request and too_large → 400, rate_limited (the upstream's refusal) and budget_spent
 * (ours) → 429 global, each with its own message, everything else → 502; each of
 * these happens after the debit, so the caller refunds. An adapter silent for
 * ADAPTER_PROGRESS.silenceMs (no progress message, no reply) is given up at once: it is gone.
 */
import type { AdapterOperation, AdapterReplyMeta, Subjects } from "@rda/contracts";
import {
  type AdapterOutcome,
  type AnswerSource,
  answerRequestHash,
  cacheCall,
  callAdapter,
  type NatsConnection,
  type Redis,
  type UpstreamCacheKeys,
} from "@rda/service-kit";
import { fail, type Step, succeed } from "./context.ts";
import type { GatewayMetrics } from "./metrics.ts";

export interface AdapterData {
  readonly data: Uint8Array;
  readonly cursor: number | null;
  readonly has_more: boolean;
  /** Epoch ms the upstream produced the oldest answer behind this data (undefined: not said). */
  readonly fetchedAtMs: number | undefined;
  /** How long after `fetchedAtMs` it may be served again (undefined: not at all). */
  readonly maxAgeS: number | undefined;
  /** How the upstream answers behind it were had, the costliest way named (undefined: not said). */
  readonly source: AnswerSource | undefined;
}

export interface AdapterCallOptions {
  /** The caller's `Cache-Control` bound in seconds (0: `no-cache`); none: the data's own bound. */
  readonly maxAgeS?: number;
  /** Whose fair share of the upstream budget the calls draw on (`budgetAccountOf`). */
  readonly account?: string;
}

export interface AdapterClient {
  call(
    operation: AdapterOperation,
    requestId: string,
    params: unknown,
    options?: AdapterCallOptions,
  ): Promise<Step<AdapterData>>;
}

export function createAdapterClient(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
  metrics: GatewayMetrics;
}): AdapterClient {
  const { nats, subjects, timeoutMs, metrics } = deps;
  return {
    async call(operation, requestId, params, options = {}) {
      const started = performance.now();
      // service-kit's one adapter caller; an adapter on a long upstream call sends progress, and
      // silence means it died (502, refunded).
      const answer = await callAdapter(nats, subjects, {
        operation,
        requestId,
        params,
        maxAgeS: options.maxAgeS,
        account: options.account,
        timeoutMs,
      });
      const outcome = answer.outcome === "no_answer" ? answer.failure : answer.outcome;
      // Our own budget's refusals are the gateway's global 429s; the upstream's are adapter outcomes.
      if (outcome === "budget_spent") metrics.rateLimited.inc({ scope: "global" });
      const seconds = (performance.now() - started) / 1000;
      metrics.natsRequestDuration.observe(
        { subject: stripNamespace(subjects.adapter[operation]), outcome },
        seconds,
      );
      metrics.adapterOutcomes.inc({ operation, outcome });
      return stepOf(answer);
    },
  };
}

/** What an adapter's outcome means to the caller: data, or the error it is answered with. */
function stepOf(answer: AdapterOutcome): Step<AdapterData> {
  switch (answer.outcome) {
    case "ok":
      return succeed({
        data: answer.data,
        cursor: answer.cursor,
        has_more: answer.hasMore,
        fetchedAtMs: answer.fetchedAtMs,
        maxAgeS: answer.maxAgeS,
        source: answer.source,
      });
    case "bad_request":
      return fail("upstream_rejected", { detail: bounded(answer.message) });
    case "too_large":
      return fail("window_too_large", { detail: bounded(answer.message) });
    case "rate_limited":
      return fail("upstream_rate_limited", { retryAfterSeconds: answer.retryAfterSeconds });
    case "budget_spent":
      return fail("global_rate_limited", { retryAfterSeconds: answer.retryAfterSeconds });
    case "store_unavailable":
      // Our own store, not the upstream: 503 with Retry-After, refunded (docs/api.md#errors).
      return fail("service_unavailable", { retryAfterSeconds: 1, internal: bounded(answer.message) });
    case "unavailable":
    case "malformed_reply":
    case "no_answer":
      return unavailable(answer.message);
  }
}

/** The internal reason goes to the log, not to the caller: the catalog message is the public one. */
function unavailable(reason: string): Step<never> {
  return fail("upstream_unavailable", { internal: bounded(reason) });
}

function bounded(message: string): string {
  return message.slice(0, 300);
}

function stripNamespace(subject: string): string {
  return subject.split(".").slice(-3).join(".");
}

/**
 * Final answers the adapters keep (docs/upstream.md#cached-answers-and-the-budget): each ok reply
 * whose upstream answers may all be served again is kept, as the very frame the adapter sent, under
 * the name of the request it answers (`answerRequestHash`). After admission the gateway reads it in
 * one GET and splices it as it would the adapter's reply, so a cache hit costs no adapter round trip
 * (and no schema: the frame is our adapters' own, `readKeptFrame`).
 *
 * The frame's head says when the upstream produced it (`fetched_at_ms`, the answer's `Age`) and how
 * long it may be served (`max_age_s`); the caller's `Cache-Control` can only shorten that, and
 * `no-cache` skips the read. The cache is an optimisation: an unreadable one is a miss.
 */
export interface CachedAnswerRequest {
  readonly operation: AdapterOperation;
  readonly params: unknown;
  /** The caller's `Cache-Control` bound (0: `no-cache`, which the cache never answers). */
  readonly maxAgeS: number | undefined;
}

export interface CachedAnswers {
  /** The kept answer, young enough for it and for its caller; undefined otherwise. */
  read(request: CachedAnswerRequest): Promise<AdapterData | undefined>;
}

export function createCachedAnswers(deps: {
  redis: Redis;
  keys: UpstreamCacheKeys;
  metrics: GatewayMetrics;
  /** The read's bound; past it the answer is a miss. Default: cacheCall's. */
  timeoutMs?: number;
}): CachedAnswers {
  const { redis, keys, metrics, timeoutMs } = deps;
  const counted = (outcome: "hit" | "miss" | "error", data?: AdapterData) => {
    metrics.cachedAnswerLookups.inc({ outcome });
    return data;
  };
  return {
    async read({ operation, params, maxAgeS }) {
      if (maxAgeS === 0) return undefined;
      const key = keys.answer(answerRequestHash(operation, params));
      const frame = await cacheCall(redis.getBuffer(key), timeoutMs).catch(() => "error" as const);
      if (frame === "error") return counted("error");
      if (frame === null) return counted("miss");
      const kept = readKeptFrame(frame);
      if (kept === undefined || !servable(kept, maxAgeS)) return counted("miss");
      return counted("hit", kept);
    },
  };
}

const NEWLINE = 0x0a;

/**
 * A kept answer's frame (contracts/adapter-frame.ts). Our adapters wrote it, as the very frame they
 * sent, so on this hot path its one-line head is read as JSON without the reply schema, and its
 * data bytes are handed on untouched; a head that is not an ok answer with its freshness is a miss.
 */
function readKeptFrame(frame: Buffer): AdapterData | undefined {
  const split = frame.indexOf(NEWLINE);
  if (split === -1) return undefined;
  let meta: unknown;
  try {
    meta = JSON.parse(frame.toString("utf8", 0, split));
  } catch {
    return undefined;
  }
  if (typeof meta !== "object" || meta === null) return undefined;
  const head = meta as Partial<Extract<AdapterReplyMeta, { outcome: "ok" }>>;
  if (head.outcome !== "ok" || typeof head.fetched_at_ms !== "number" || typeof head.max_age_s !== "number")
    return undefined;
  return {
    data: frame.subarray(split + 1),
    cursor: head.cursor ?? null,
    has_more: head.has_more ?? false,
    fetchedAtMs: head.fetched_at_ms,
    maxAgeS: head.max_age_s,
    source: head.source,
  };
}

function servable(answer: AdapterData, callerMaxAgeS: number | undefined): boolean {
  const { fetchedAtMs, maxAgeS } = answer;
  if (fetchedAtMs === undefined || maxAgeS === undefined) return false;
  const boundS = Math.min(maxAgeS, callerMaxAgeS ?? Number.POSITIVE_INFINITY);
  return Date.now() - fetchedAtMs <= boundS * 1000;
}
