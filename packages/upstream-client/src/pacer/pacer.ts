/**
 * The pacer: every HTTP request to the upstream, from every adapter replica, first asks it for a
 * turn, and tells it afterwards what the upstream said about its window. It keeps the whole product
 * inside one budget (docs/upstream.md#rate-limits): a request rate, a cap on requests in flight, and
 * the upstream's own window while it reports one as spent.
 *
 * A turn is asked for with the moment the caller stops waiting, its traffic class and the account it
 * is for: the shared pacer (redis-pacer.ts) is a scheduler that serves interactive requests before
 * monitors and exports, and within a class gives each account a fair share
 * (docs/upstream.md#fair-shares).
 */

/**
 * Who a request serves: customers waiting on HTTP or MCP (`interactive`), or background work. The
 * scheduler serves interactive first and gives background what is left, never nothing.
 */
export type TrafficClass = "interactive" | "monitors" | "exports";

export interface TurnRequest {
  /** Epoch ms after which waiting for a turn is pointless: the call's deadline, less one attempt's floor. */
  readonly waitUntilMs: number;
  /** Default interactive. */
  readonly priority?: TrafficClass;
  /**
   * Whose turn it is, for fair shares within the class: the portal account, or `key:<id>` for an
   * operator's key (an account of its own). Requests that do not say share one flow.
   */
  readonly account?: string;
}

/** What the upstream said about its window in one answer's headers (rate-limit-headers.ts). */
export interface WindowReport {
  /** `x-ratelimit-remaining`, when sent. */
  readonly remaining?: number;
  /** When the window ends, epoch ms, from `x-ratelimit-reset-at` or `x-ratelimit-reset`. */
  readonly resetAtMs?: number;
  /** The answer was a 429: the window is spent until `resetAtMs` (a minute when unknown). */
  readonly rateLimited: boolean;
}

export type Turn =
  | {
      readonly granted: true;
      /** Ends the turn (frees its place in flight) and records what the answer said; call once. */
      finish(report?: WindowReport): void;
    }
  | {
      readonly granted: false;
      /**
       * `window_spent`: the upstream said so, the request was not sent; `queue_full`: our own budget
       * is spent: no turn came within the wait allowed; `pacer_unavailable`: the shared state could
       * not be read.
       */
      readonly reason: "window_spent" | "queue_full" | "pacer_unavailable";
      /** When a turn can be expected, in whole seconds (at least 1): the caller's `Retry-After`. */
      readonly retryAfterSeconds: number;
    };

export interface UpstreamPacer {
  turn(request: TurnRequest): Promise<Turn>;
}

/** No pacing at all: for tests of the client and for a lone adapter pointed at a private upstream. */
export const unpaced: UpstreamPacer = {
  turn: async () => ({ granted: true, finish() {} }),
};
