/**
 * The upstream's budget, written once: the adapters' shared pacer is its one owner (every upstream
 * call takes a turn there). The time bounds that depend on it live in bounds.ts. Why these values:
 * docs/upstream.md#rate-limits.
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
  /**
   * The longest a customer's request waits for a turn before it is answered 429 "our budget is
   * spent" (refunded): well under the upstream deadline (30 s), so nobody waits out a deadline in our
   * own queue. Fair shares (docs/upstream.md#fair-shares) keep a light account's wait far below it.
   */
  interactiveWaitMs: 5_000,
} as const;
