/**
 * The undici client of the upstream API: one keep-alive pool per upstream origin, a deadline per call
 * that covers every retry and wait, classified outcomes, and coalescing of identical concurrent calls.
 * Every attempt and call is reported to the observer (metrics) and, while tracing is on, each attempt
 * is a client span of the request it serves.
 */

import type { Readable } from "node:stream";
import { inSpan, type Logger, type Span, SpanKind, tracingActive } from "@rda/service-kit";
import { Pool } from "undici";
import { sleep } from "./backoff.ts";
import {
  type Fetched,
  fetchOnce,
  readCached,
  type SharedFetchSettings,
  servableFor,
} from "./cache/shared-fetch.ts";
import { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "./identity.ts";
import { type TrafficClass, type Turn, unpaced, type WindowReport } from "./pacer/redis-pacer.ts";
import { type AttemptVerdict, type CallState, classifyAnswer, countsOf, decide } from "./retry-policy.ts";
import { type ClientSettings, resolveSettings } from "./settings.ts";
import type {
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamObserver,
  UpstreamPacer,
  UpstreamQuery,
  UpstreamResult,
} from "./types.ts";

interface Transport {
  readonly pool: Pool;
  readonly prefix: string;
  readonly settings: ClientSettings;
  readonly observer: UpstreamObserver | undefined;
  readonly userAgent: string;
  readonly pacer: UpstreamPacer;
  sent: number;
}

/**
 * One call as the transport sees it: the upstream path, the operation, the class and account it
 * serves, and when it must end (epoch ms).
 */
interface CallLabels {
  readonly path: string;
  readonly operation: string;
  readonly priority: TrafficClass;
  readonly account: string | undefined;
  readonly deadlineAtMs: number;
  /** The call's own bound on retries (`CallOptions.maxRetries`), when it has one. */
  readonly maxRetries: number | undefined;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const settings = resolveSettings(options);
  const { origin, prefix } = parseBaseUrl(options.baseUrl);
  const pool = new Pool(origin, { connections: settings.connections, keepAliveTimeout: 30_000 });
  const pacer = options.pacer ?? unpaced;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const transport: Transport = {
    pool,
    prefix,
    settings,
    observer: options.observer,
    pacer,
    userAgent,
    sent: 0,
  };
  const appName = options.appName ?? DEFAULT_APP_NAME;
  const coalescer = createCoalescer<Fetched>();
  const cache: SharedFetchSettings | undefined = options.cache && {
    ...options.cache,
    logger: options.logger,
  };
  let coalesced = 0;
  let cacheHits = 0;
  return {
    async get(path, query, call = {}) {
      const tagged = { ...query, "meta-app": appName };
      const key = buildRequestPath(prefix, path, tagged);
      // A joined call is logged under the request that started it.
      const logger = call.logger ?? options.logger;
      const labels = {
        path,
        operation: call.operation ?? "unknown",
        priority: call.priority ?? "interactive",
        account: call.account,
        deadlineAtMs:
          Math.min(Date.now(), call.startedAtMs ?? Number.POSITIVE_INFINITY) + settings.deadlineMs,
        maxRetries: call.maxRetries,
      };
      const upstream = () => observedCall(transport, labels, tagged, logger);
      const request = {
        path,
        query: tagged,
        requestPath: key,
        maxAgeS: call.maxAgeS,
        waitUntilMs: labels.deadlineAtMs,
      };
      const answered = (fetched: Fetched): UpstreamResult => {
        const { fetchedAtMs, source } = fetched;
        // Without a cache nothing is served again, so no answer built on this one may be either.
        if (call.onAnswer) {
          const maxAgeS = cache ? servableFor(cache, request, fetched) : undefined;
          call.onAnswer({ fetchedAtMs, source, maxAgeS });
        }
        return fetched.result;
      };
      // A cache that could not be read is not asked again for this call (no cross-replica claim):
      // each stalled command costs its whole timeout, and they must not add up past the caller's.
      let cacheReachable = cache !== undefined;
      if (cache) {
        const cached = await readCached(cache, request);
        options.observer?.cacheLookup?.({ operation: labels.operation, lookup: cached.lookup });
        if (cached.fetched) {
          cacheHits += 1;
          return answered(cached.fetched);
        }
        cacheReachable = cached.lookup !== "error";
      }
      // Identical calls in this process share one promise; across replicas, fetchOnce's claim.
      const { promise, joined } = coalescer.run(key, () =>
        cache && cacheReachable
          ? fetchOnce(cache, request, upstream)
          : upstream().then((result) => ({ result, fetchedAtMs: Date.now(), source: "upstream" as const })),
      );
      const fetched = await promise;
      if (joined || fetched.source === "joined") {
        coalesced += 1;
        options.observer?.coalesced(labels.operation);
      }
      return answered(fetched);
    },
    stats: () => ({ requests: transport.sent, coalesced, cacheHits }),
    close: () => pool.close(),
  };
}

async function observedCall(
  transport: Transport,
  labels: CallLabels,
  query: UpstreamQuery,
  logger: Logger | undefined,
): Promise<UpstreamResult> {
  const started = performance.now();
  const result = await callWithRetries(transport, labels, query, logger);
  const seconds = (performance.now() - started) / 1000;
  const { outcome, retries } = result;
  transport.observer?.call({ operation: labels.operation, outcome, retries, seconds });
  if (result.outcome === "unavailable" && result.blocked) transport.observer?.blocked?.(labels.operation);
  return result;
}

async function callWithRetries(
  transport: Transport,
  labels: CallLabels,
  query: UpstreamQuery,
  logger: Logger | undefined,
) {
  const { path } = labels;
  const deadline = labels.deadlineAtMs;
  const settings =
    labels.maxRetries === undefined
      ? transport.settings
      : { ...transport.settings, maxRetries: Math.min(labels.maxRetries, transport.settings.maxRetries) };
  let state = { attempts: 0, query, busyRetried: false, remainingMs: deadline - Date.now() };
  const attemptFloor = attemptFloorMs(transport.settings);
  // A later call of a request that spent its time waiting for turns: our queue, not the upstream.
  if (deadline - Date.now() < attemptFloor) {
    const message =
      "our upstream budget is spent: no time left for this request's next call; nothing was sent";
    return logOutcome(logger, path, {
      outcome: "budget_spent",
      message,
      retry_after_seconds: 1,
      attempts: 0,
      retries: 0,
    });
  }
  for (;;) {
    const asked = performance.now();
    const turn = await transport.pacer.turn({
      waitUntilMs: deadline - attemptFloor,
      priority: labels.priority,
      account: labels.account,
    });
    transport.observer?.turn?.({
      operation: labels.operation,
      outcome: turn.granted ? "granted" : turn.reason,
      seconds: (performance.now() - asked) / 1000,
    });
    if (!turn.granted) return logOutcome(logger, path, refusedTurn(turn, state));
    const timeoutMs = Math.min(transport.settings.attemptTimeoutMs, Math.max(1, deadline - Date.now()));
    let answered: Awaited<ReturnType<typeof attempt>> | undefined;
    try {
      answered = await attempt(
        transport,
        labels,
        buildRequestPath(transport.prefix, path, state.query),
        timeoutMs,
      );
    } finally {
      // Always: a turn never ended would hold its place in flight, renewed, for good.
      turn.finish(answered?.window);
    }
    const { verdict } = answered;
    state = { ...state, attempts: state.attempts + 1, remainingMs: deadline - Date.now() };
    const decision = decide(verdict, state, settings);
    if ("stop" in decision) return logOutcome(logger, path, decision.stop);
    logger?.debug({ path, reason: describe(verdict), waitMs: decision.waitMs }, "retrying");
    await sleep(decision.waitMs);
    state = { ...state, query: decision.query, busyRetried: decision.busyRetried };
    state = { ...state, remainingMs: deadline - Date.now() };
  }
}

const MIN_ATTEMPT_MS = 1_000;

/** A turn that leaves less time than this is not worth an upstream request. */
function attemptFloorMs(settings: ClientSettings): number {
  return Math.min(settings.attemptTimeoutMs, MIN_ATTEMPT_MS);
}

/**
 * The pacer gave no turn: the request was not sent. A window the upstream reported spent is its
 * limit reached (`rate_limited`); no turn within the wait allowed is our own budget spent
 * (`budget_spent`); both carry the pacer's estimate as Retry-After. A pacer that cannot be asked is
 * our own outage (`store_unavailable`, a 503), never blamed on the upstream.
 */
function refusedTurn(turn: Extract<Turn, { granted: false }>, state: CallState): UpstreamResult {
  const counts = countsOf(state);
  const retry_after_seconds = turn.retryAfterSeconds;
  switch (turn.reason) {
    case "pacer_unavailable":
      return {
        outcome: "store_unavailable",
        message: "upstream pacer unavailable: nothing was sent",
        ...counts,
      };
    case "window_spent":
      return {
        outcome: "rate_limited",
        message: "upstream window spent: nothing was sent",
        retry_after_seconds,
        ...counts,
      };
    case "queue_full":
      return {
        outcome: "budget_spent",
        message: "our upstream budget is spent: nothing was sent",
        retry_after_seconds,
        ...counts,
      };
  }
}

/** One HTTP attempt, timed for the observer and, with tracing on, a client span. */
async function attempt(
  transport: Transport,
  labels: CallLabels,
  path: string,
  timeoutMs: number,
): Promise<{ verdict: AttemptVerdict; window: WindowReport | undefined }> {
  const started = performance.now();
  const sent = tracingActive()
    ? await inSpan(
        `GET ${labels.path}`,
        { kind: SpanKind.CLIENT, attributes: { "http.request.method": "GET", "url.path": labels.path } },
        (span) => send(transport, path, timeoutMs, span),
        ({ verdict }) => (verdict.kind === "ok" ? undefined : verdict.kind),
      )
    : await send(transport, path, timeoutMs);
  const seconds = (performance.now() - started) / 1000;
  transport.observer?.attempt({ operation: labels.operation, statusClass: sent.statusClass, seconds });
  return { verdict: sent.verdict, window: sent.window };
}

async function send(
  transport: Transport,
  path: string,
  timeoutMs: number,
  span?: Span,
): Promise<{ verdict: AttemptVerdict; statusClass: string; window?: WindowReport }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let status: number | undefined;
  transport.sent += 1;
  try {
    const response = await transport.pool.request({
      path,
      method: "GET",
      signal: controller.signal,
      headers: { accept: "application/json", "user-agent": transport.userAgent },
    });
    status = response.statusCode;
    span?.setAttribute("http.response.status_code", status);
    const { maxBodyBytes } = transport.settings;
    // Read on every answer, not only on a 429: the pacer keeps the whole product inside the window.
    const now = Date.now();
    const window = readWindowHeaders(response.headers, status, now);
    const resetSeconds = window?.resetAtMs === undefined ? undefined : (window.resetAtMs - now) / 1000;
    const raw = await readBounded(response.body, response.headers["content-length"], maxBodyBytes);
    const verdict = classifyAnswer(status, resetSeconds, raw);
    return { verdict, statusClass: statusClass(status), window };
  } catch (error) {
    const answered = status === undefined ? undefined : statusClass(status);
    if (error instanceof BodyTooLargeError) {
      return { verdict: { kind: "unavailable", reason: error.message }, statusClass: answered ?? "error" };
    }
    if (controller.signal.aborted) {
      const verdict = { kind: "transient", reason: `no answer within ${timeoutMs} ms` } as const;
      return { verdict, statusClass: answered ?? "timeout" };
    }
    const verdict = { kind: "transient", reason: `request failed: ${errorCode(error)}` } as const;
    return { verdict, statusClass: answered ?? "error" };
  } finally {
    clearTimeout(timer);
  }
}

function logOutcome(logger: Logger | undefined, path: string, result: UpstreamResult): UpstreamResult {
  if (result.outcome === "unavailable" && result.blocked) {
    // One line that says what was seen, for the operator the alert sends here.
    logger?.error(
      { path, attempts: result.attempts, seen: result.message },
      "upstream blocked the request; check UPSTREAM_USER_AGENT and the address the adapters call from",
    );
  } else if (result.outcome !== "ok" || result.retries > 0) {
    const { outcome, attempts } = result;
    const message = "message" in result ? result.message : undefined;
    logger?.warn({ path, outcome, attempts, message }, "upstream call needed retries or failed");
  }
  return result;
}

function describe(verdict: AttemptVerdict): string {
  if (verdict.kind === "ok") return "ok";
  if (verdict.kind === "rate_limited") return "HTTP 429";
  return verdict.reason;
}

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error) return String(error.code);
  return error instanceof Error ? error.message : String(error);
}

/** "2xx", "4xx", "5xx"...; 429 keeps its own class: it means the upstream's limit, not a bad request. */
function statusClass(status: number): string {
  return status === 429 ? "429" : `${Math.floor(status / 100)}xx`;
}

/**
 * Identical concurrent calls (same request path) share one upstream request: a burst of callers asking
 * for the same page costs the upstream, and our shared budget, one request.
 */
export interface Coalescer<T> {
  run(key: string, start: () => Promise<T>): { promise: Promise<T>; joined: boolean };
}

export function createCoalescer<T>(): Coalescer<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    run(key, start) {
      const running = inFlight.get(key);
      if (running) return { promise: running, joined: true };
      const promise = start().finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return { promise, joined: false };
    },
  };
}

/** Builds the path of one upstream request under the base URL's own path prefix. */
export interface UpstreamOrigin {
  readonly origin: string;
  /** Path prefix of UPSTREAM_URL without a trailing slash ("" for none). */
  readonly prefix: string;
}

export function parseBaseUrl(baseUrl: string): UpstreamOrigin {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`upstream base URL must be http(s), got ${url.protocol}`);
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/** Parameters keep the caller's order; the same call always yields the same path (coalescing key). */
export function buildRequestPath(prefix: string, path: string, query: UpstreamQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === "" ? `${prefix}${path}` : `${prefix}${path}?${text}`;
}

/** Reads a response body whole, refusing it once it grows past a bound. */
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`upstream body exceeds ${limitBytes} bytes`);
    this.name = "BodyTooLargeError";
  }
}

export async function readBounded(
  body: Readable & { dump?: () => Promise<void> },
  declaredLength: string | string[] | undefined,
  maxBytes: number,
): Promise<Buffer> {
  if (typeof declaredLength === "string" && Number(declaredLength) > maxBytes) {
    await body.dump?.();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads the upstream's rate-limit headers (docs/upstream.md#rate-limits) on every answer. The reset
 * arrives in several forms: seconds left in the window (`x-ratelimit-reset: 42`), or a moment, as
 * epoch seconds or epoch milliseconds (`x-ratelimit-reset-at: 1790000040000`). The forms are told
 * apart by size, which cannot be confused: a window of seconds left is far below 10^9 (the epoch
 * second of 2001), and epoch seconds are far below 10^11 (the epoch millisecond of 1973).
 */
/** Longest reset believed: a value further out is a misreading, and is ignored. */
const MAX_RESET_MS = 60 * 60 * 1000;
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MILLISECONDS_FROM = 1e11;

type HeaderValue = string | string[] | undefined;

/**
 * The window as one answer's headers describe it, or undefined when they say nothing usable.
 * `x-ratelimit-reset` is preferred: as seconds left it does not depend on the two clocks agreeing.
 * Either header is read in whichever form it comes.
 */
export function readWindowHeaders(
  headers: Record<string, HeaderValue>,
  status: number,
  nowMs: number,
): WindowReport | undefined {
  const resetAtMs =
    resetMoment(headers["x-ratelimit-reset"], nowMs) ?? resetMoment(headers["x-ratelimit-reset-at"], nowMs);
  const remaining = wholeNumber(headers["x-ratelimit-remaining"]);
  const rateLimited = status === 429;
  if (resetAtMs === undefined && remaining === undefined && !rateLimited) return undefined;
  return {
    rateLimited,
    ...(resetAtMs === undefined ? {} : { resetAtMs }),
    ...(remaining === undefined ? {} : { remaining }),
  };
}

/** The epoch ms a reset header names, whatever its form; undefined when unreadable or implausible. */
export function resetMoment(header: HeaderValue, nowMs: number): number | undefined {
  const value = numberOf(header);
  if (value === undefined || value < 0) return undefined;
  let moment: number;
  if (value >= EPOCH_MILLISECONDS_FROM) moment = value;
  else if (value >= EPOCH_SECONDS_FROM) moment = value * 1000;
  else moment = nowMs + value * 1000;
  // A moment just past (clocks differ, the answer took time) means the window has already turned.
  if (moment < nowMs) return moment < nowMs - MAX_RESET_MS ? undefined : nowMs;
  return moment - nowMs > MAX_RESET_MS ? undefined : Math.ceil(moment);
}

function numberOf(header: HeaderValue): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const value = Number(raw.trim());
  return Number.isFinite(value) ? value : undefined;
}

function wholeNumber(header: HeaderValue): number | undefined {
  const value = numberOf(header);
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
}
