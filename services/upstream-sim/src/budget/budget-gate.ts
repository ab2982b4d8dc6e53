/**
 * Enforces the budget quirks on the upstream traffic, per client address, and keeps the counters a
 * test needs to show a client stayed inside its budget (`GET /__sim/stats`, key `budget`): how many
 * requests were refused with 429 or as busy, the most seen in one window and the most in flight.
 */
import type { BudgetQuirks } from "./budget-quirks.ts";

const WINDOW_MS = 60_000;

export type GateVerdict =
  | { readonly kind: "pass"; readonly headers: Record<string, string>; readonly delayMs: number }
  | { readonly kind: "rate_limited"; readonly headers: Record<string, string> }
  | { readonly kind: "busy"; readonly headers: Record<string, string> };

interface ClientState {
  window: number;
  count: number;
  inFlight: number;
}

export interface BudgetCounters {
  readonly window_limit: number;
  readonly max_in_flight_allowed: number;
  /** Requests answered 429 because the client's window was spent. */
  readonly rate_limited: number;
  /** Requests refused as busy because too many were in flight. */
  readonly busy_refusals: number;
  /** The most requests one client made in one window. */
  readonly peak_in_window: number;
  /** The most requests one client had in flight at once (a refused one included). */
  readonly peak_in_flight: number;
  /** Requests slowed down as heavy. */
  readonly heavy: number;
}

export class BudgetGate {
  readonly #quirks: BudgetQuirks;
  #clients = new Map<string, ClientState>();
  #counters = { rate_limited: 0, busy_refusals: 0, peak_in_window: 0, peak_in_flight: 0, heavy: 0 };

  constructor(quirks: BudgetQuirks) {
    this.#quirks = quirks;
  }

  /** Called when a request arrives; `finished` must be called when its answer has been written. */
  judgeArrival(client: string, heavy: boolean, nowMs: number): GateVerdict {
    const state = this.#state(client, nowMs);
    state.count += 1;
    this.#counters.peak_in_window = Math.max(this.#counters.peak_in_window, state.count);
    const headers = this.#headers(state, nowMs);
    const { windowLimit, maxInFlight } = this.#quirks;
    if (windowLimit > 0 && state.count > windowLimit) {
      this.#counters.rate_limited += 1;
      return { kind: "rate_limited", headers };
    }
    this.#counters.peak_in_flight = Math.max(this.#counters.peak_in_flight, state.inFlight + 1);
    if (maxInFlight > 0 && state.inFlight + 1 > maxInFlight) {
      this.#counters.busy_refusals += 1;
      return { kind: "busy", headers };
    }
    state.inFlight += 1;
    if (heavy && this.#quirks.heavyLatencyMs > 0) this.#counters.heavy += 1;
    return { kind: "pass", headers, delayMs: heavy ? this.#quirks.heavyLatencyMs : 0 };
  }

  finished(client: string): void {
    const state = this.#clients.get(client);
    if (state && state.inFlight > 0) state.inFlight -= 1;
  }

  counters(): BudgetCounters {
    return {
      window_limit: this.#quirks.windowLimit,
      max_in_flight_allowed: this.#quirks.maxInFlight,
      ...this.#counters,
    };
  }

  resetCounters(): void {
    this.#counters = { rate_limited: 0, busy_refusals: 0, peak_in_window: 0, peak_in_flight: 0, heavy: 0 };
  }

  #state(client: string, nowMs: number): ClientState {
    const window = Math.floor(nowMs / WINDOW_MS);
    let state = this.#clients.get(client);
    if (!state) {
      state = { window, count: 0, inFlight: 0 };
      this.#clients.set(client, state);
    }
    if (state.window !== window) {
      state.window = window;
      state.count = 0;
    }
    return state;
  }

  /** The forms the real upstream sends: seconds left, and the window's end in epoch ms. */
  #headers(state: ClientState, nowMs: number): Record<string, string> {
    const resetAt = (state.window + 1) * WINDOW_MS;
    const headers: Record<string, string> = {
      "x-ratelimit-reset": String(Math.ceil((resetAt - nowMs) / 1000)),
      "x-ratelimit-reset-at": String(resetAt),
    };
    if (this.#quirks.sendRemaining && this.#quirks.windowLimit > 0)
      headers["x-ratelimit-remaining"] = String(Math.max(0, this.#quirks.windowLimit - state.count));
    return headers;
  }
}

/** A query the upstream answers slowly: whole comment trees, scans of one author, user search. */
export function isHeavyQuery(path: string, query: Record<string, unknown>): boolean {
  if (path === "/api/comments/tree" || path === "/api/users/search") return true;
  const search = path === "/api/posts/search" || path === "/api/comments/search";
  return search && query.author !== undefined && query.subreddit === undefined;
}
