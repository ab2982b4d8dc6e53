/**
 * What to do after one attempt: stop with a classified result, or wait and try again (possibly with a
 * smaller `limit`), never waiting past the call's deadline. The client's loop (client.ts) only asks
 * for turns, sends attempts and follows these decisions. Pure, so every rule is testable without a
 * server.
 */
import { fullJitterDelayMs } from "./backoff.ts";
import { locateDataBytes } from "./data-bytes.ts";
import { classifyNonJson, describePage } from "./non-json-answer.ts";
import type { ClientSettings } from "./settings.ts";
import type { UpstreamBody, UpstreamQuery, UpstreamResult } from "./types.ts";

export interface CallState {
  readonly attempts: number;
  readonly query: UpstreamQuery;
  /** Whether a "busy" answer already cost the call its one retry with a halved limit. */
  readonly busyRetried: boolean;
  readonly remainingMs: number;
}

export type Decision =
  | { readonly stop: UpstreamResult }
  | { readonly waitMs: number; readonly query: UpstreamQuery; readonly busyRetried: boolean };

/** Without a usable reset header, assume the whole 60 s window (docs/upstream.md#rate-limits). */
const WINDOW_SECONDS = 60;

/** What every result reports: attempts sent, and how many of them were retries. */
export function countsOf(state: Pick<CallState, "attempts">) {
  return { attempts: state.attempts, retries: Math.max(0, state.attempts - 1) };
}

type Counts = ReturnType<typeof countsOf>;

export function decide(verdict: AttemptVerdict, state: CallState, settings: ClientSettings): Decision {
  const decision = decideByVerdict(verdict, state, settings);
  if ("stop" in decision || decision.waitMs < state.remainingMs) return decision;
  return { stop: outOfTime(verdict, countsOf(state)) };
}

function decideByVerdict(verdict: AttemptVerdict, state: CallState, settings: ClientSettings): Decision {
  const counts = countsOf(state);
  const retriesLeft = state.attempts <= settings.maxRetries;
  switch (verdict.kind) {
    case "ok":
      return { stop: { outcome: "ok", body: verdict.body, query: state.query, ...counts } };
    case "bad_request":
    case "unavailable":
      return { stop: { outcome: verdict.kind, message: `upstream: ${verdict.reason}`, ...counts } };
    case "blocked":
      // docs/upstream.md#errors-and-busy-answers: the same request would get the same block page.
      return {
        stop: {
          outcome: "unavailable",
          message: `upstream blocked the request: ${verdict.reason}`,
          blocked: true,
          ...counts,
        },
      };
    case "transient":
      return retriesLeft
        ? backoff(state, settings, state.query, state.busyRetried)
        : unavailable(verdict, counts);
    case "busy":
      // docs/upstream.md#where-our-contract-differs: retry once with `limit` halved; a second "busy" ends the call.
      return retriesLeft && !state.busyRetried
        ? { waitMs: busyWaitMs(settings), query: halveLimit(state.query), busyRetried: true }
        : unavailable(verdict, counts);
    case "rate_limited":
      return rateLimited(verdict.resetSeconds, state, retriesLeft, counts);
  }
}

function backoff(state: CallState, settings: ClientSettings, query: UpstreamQuery, busyRetried: boolean) {
  const waitMs = fullJitterDelayMs(state.attempts - 1, settings.backoffBaseMs, settings.backoffCapMs);
  return { waitMs, query, busyRetried };
}

/** Seconds, not milliseconds: the upstream asked us to slow down. Jittered so callers spread out. */
export function busyWaitMs(settings: ClientSettings, random = Math.random): number {
  return settings.busyWaitMs + Math.floor(random() * settings.busyWaitMs);
}

function unavailable(verdict: { reason: string }, counts: Counts): Decision {
  return { stop: { outcome: "unavailable", message: `upstream: ${verdict.reason}`, ...counts } };
}

/** An upstream 429 is waited out when its reset fits in the deadline; otherwise it is the caller's 429. */
function rateLimited(
  resetSeconds: number | undefined,
  state: CallState,
  retriesLeft: boolean,
  counts: Counts,
): Decision {
  if (resetSeconds !== undefined && retriesLeft && resetSeconds * 1000 < state.remainingMs) {
    return { waitMs: Math.ceil(resetSeconds * 1000), query: state.query, busyRetried: state.busyRetried };
  }
  return { stop: rateLimitReached(resetSeconds, counts) };
}

function rateLimitReached(resetSeconds: number | undefined, counts: Counts): UpstreamResult {
  const retryAfter = Math.max(1, Math.ceil(resetSeconds ?? WINDOW_SECONDS));
  return {
    outcome: "rate_limited",
    message: "upstream rate limit reached",
    retry_after_seconds: retryAfter,
    ...counts,
  };
}

/** When the next wait would pass the deadline, the call ends as its last failure classifies. */
function outOfTime(verdict: AttemptVerdict, counts: Counts): UpstreamResult {
  if (verdict.kind === "rate_limited") return rateLimitReached(verdict.resetSeconds, counts);
  const reason = "reason" in verdict ? verdict.reason : verdict.kind;
  return { outcome: "unavailable", message: `upstream: ${reason} (no time left to retry)`, ...counts };
}

export function halveLimit(query: UpstreamQuery): UpstreamQuery {
  const limit = Number(query.limit);
  if (!Number.isInteger(limit) || limit <= 1) return query;
  return { ...query, limit: Math.floor(limit / 2) };
}

/**
 * Classifies one upstream HTTP answer (docs/upstream.md#errors-and-busy-answers). Any body with an `error`
 * key is a failure whatever the status, 200 and 422 included; a body that is not JSON (Cloudflare 52x
 * pages, a truncated answer) is a failure too. Transient failures are retried; the others are final.
 */
export type AttemptVerdict =
  | { readonly kind: "ok"; readonly body: UpstreamBody }
  /** Worth another attempt: 5xx, non-JSON, connection trouble. */
  | { readonly kind: "transient"; readonly reason: string }
  /** The upstream's "slow down" answer: retried once with `limit` halved (docs/upstream.md#rate-limits). */
  | { readonly kind: "busy"; readonly reason: string }
  /** 429; `resetSeconds` until the window turns, when the upstream's headers said (client.ts, `readWindowHeaders`). */
  | { readonly kind: "rate_limited"; readonly resetSeconds: number | undefined }
  | { readonly kind: "bad_request"; readonly reason: string }
  /** Refused before reaching the API (a Cloudflare block page): final, never retried in a loop. */
  | { readonly kind: "blocked"; readonly reason: string }
  | { readonly kind: "unavailable"; readonly reason: string };

/** The upstream's busy answers (docs/upstream.md#errors-and-busy-answers), seen and documented. */
const BUSY_MESSAGE = /slow down|timed out|timeout/i;

export function classifyAnswer(
  status: number,
  resetSeconds: number | undefined,
  body: Uint8Array | string,
): AttemptVerdict {
  if (status === 429) return { kind: "rate_limited", resetSeconds };
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const parsed = parseJson(text);
  if (parsed === undefined)
    return { kind: classifyNonJson(status, text), reason: describePage(status, text) };
  if (isRecord(parsed) && "error" in parsed) return classifyErrorBody(status, parsed.error);
  if (status >= 500) return { kind: "transient", reason: `HTTP ${status}` };
  if (status === 400) return { kind: "bad_request", reason: "HTTP 400" };
  if (status >= 300) return { kind: "unavailable", reason: `HTTP ${status}` };
  if (!isRecord(parsed) || !("data" in parsed)) {
    return { kind: "unavailable", reason: `HTTP ${status} with a JSON body that has no data key` };
  }
  const onlyData = Object.keys(parsed).length === 1;
  return {
    kind: "ok",
    body: { data: parsed.data, dataBytes: onlyData ? locateDataBytes(bytes) : undefined },
  };
}

function classifyErrorBody(status: number, error: unknown): AttemptVerdict {
  const message = typeof error === "string" ? error.slice(0, 200) : JSON.stringify(error)?.slice(0, 200);
  const reason = `HTTP ${status}: ${message}`;
  if (typeof error === "string" && BUSY_MESSAGE.test(error)) return { kind: "busy", reason };
  if (status >= 500) return { kind: "transient", reason };
  // The upstream refused a parameter: asking again would get the same answer.
  if (status === 400) return { kind: "bad_request", reason };
  return { kind: "unavailable", reason };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
