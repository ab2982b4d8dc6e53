/**
 * The upstream's budget and the time bounds that depend on it, written once for every process that
 * needs them (billing's reserve, the adapters' pacer and timeouts, the gateway's wait, the MCP
 * service's wait). Why these values: docs/upstream.md#rate-limits and docs/operations.md#timeouts.
 */

/**
 * The whole product's share of the upstream: about two requests a second for every customer
 * together (the upstream asks for "a couple requests per second" per client address), and at most
 * two in flight (busy answers were observed beyond two in parallel).
 */
export const UPSTREAM_BUDGET_DEFAULTS = {
  /** Upstream HTTP requests per second, every adapter replica together (the pacer). */
  requestsPerSecond: 2,
  /** Upstream requests in flight, every adapter replica together (the pacer). */
  concurrency: 2,
  /** Data requests billing admits per second into the shared reserve, and its burst. */
  reserveQps: 2,
  reserveBurst: 4,
} as const;

/** Default time bounds, in milliseconds, in the order `upstreamTimeoutOrderProblem` checks. */
export const UPSTREAM_TIMEOUT_DEFAULTS = {
  /** One HTTP attempt: heavy queries take seconds upstream. */
  attemptMs: 20_000,
  /** One upstream call: every attempt, wait and turn in the pacer's queue. */
  deadlineMs: 30_000,
  /** The gateway's wait for an adapter's answer: the call's deadline and room to frame the reply. */
  adapterMs: 35_000,
  /** A pending debit outlives the gateway's wait by this much (the answer is written, then settled). */
  pendingDebitMarginMs: 20_000,
  /** The MCP service's wait for the gateway outlives the gateway's wait for an adapter by this much. */
  mcpMarginMs: 5_000,
} as const;

/**
 * An adapter working on a request longer than `everyMs` tells the gateway it is alive that often;
 * the gateway gives the request up as lost (502, refunded) after `silenceMs` without a word, so a
 * replica that dies mid-call costs its callers under two seconds whatever the call was allowed.
 */
export const ADAPTER_PROGRESS = { everyMs: 400, silenceMs: 1_500 } as const;

export interface UpstreamTimeouts {
  readonly UPSTREAM_ATTEMPT_TIMEOUT_MS?: number;
  readonly UPSTREAM_DEADLINE_MS?: number;
  readonly ADAPTER_TIMEOUT_MS?: number;
  readonly PENDING_DEBIT_MS?: number;
}

/**
 * The first pair of bounds out of order, as one sentence naming both variables; undefined when the
 * given ones agree. Each bound must exceed the one before it: an attempt fits in a call, a call in
 * the gateway's wait, the wait in a pending debit's life.
 */
export function upstreamTimeoutOrderProblem(timeouts: UpstreamTimeouts): string | undefined {
  const order = [
    "UPSTREAM_ATTEMPT_TIMEOUT_MS",
    "UPSTREAM_DEADLINE_MS",
    "ADAPTER_TIMEOUT_MS",
    "PENDING_DEBIT_MS",
  ] as const;
  const present = order.filter((name) => timeouts[name] !== undefined);
  for (let index = 1; index < present.length; index += 1) {
    const shorter = present[index - 1]!;
    const longer = present[index]!;
    const allowEqual = shorter === "UPSTREAM_ATTEMPT_TIMEOUT_MS";
    const a = timeouts[shorter]!;
    const b = timeouts[longer]!;
    if (allowEqual ? a > b : a >= b)
      return `${longer} (${b} ms) must be ${allowEqual ? "at least" : "longer than"} ${shorter} (${a} ms)`;
  }
  return undefined;
}
