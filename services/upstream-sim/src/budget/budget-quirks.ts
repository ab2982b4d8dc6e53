/**
 * How the real upstream rations its clients (docs/upstream.md#rate-limits), as simulator settings:
 * a request window per client address on minute boundaries, "busy" refusals past a few requests
 * in flight, and heavy queries that take seconds. Off by default; `SIM_PROFILE=strict` turns all of
 * them on, and each has its own flag.
 */
import { z } from "zod";

export interface BudgetQuirks {
  /** Requests one client may make per 60 s window (on minute boundaries); past it, 429. 0: no window. */
  readonly windowLimit: number;
  /** Also send `x-ratelimit-remaining` (the real upstream was not seen sending it). */
  readonly sendRemaining: boolean;
  /** Requests one client may have in flight; past it, the busy answer. 0: no cap. */
  readonly maxInFlight: number;
  /** Added to every heavy query (comment trees, scans by author, user search). */
  readonly heavyLatencyMs: number;
}

export const NO_BUDGET_QUIRKS: BudgetQuirks = {
  windowLimit: 0,
  sendRemaining: false,
  maxInFlight: 0,
  heavyLatencyMs: 0,
};

/** What the real upstream was seen doing: about 2 requests a second, 2 in flight, heavy queries slow. */
export const STRICT_BUDGET_QUIRKS: BudgetQuirks = {
  windowLimit: 120,
  sendRemaining: false,
  maxInFlight: 2,
  heavyLatencyMs: 1_500,
};

/** A whole number of 0 or more, or unset (the profile's value stands). */
const flag = () => z.coerce.number({ error: "must be an integer >= 0" }).int().min(0).optional();

/** The flags, each overriding its profile's value when set (SIM_SEND_REMAINING: 1 on, 0 off). */
export const budgetQuirkFlags = {
  SIM_WINDOW_LIMIT: flag(),
  SIM_SEND_REMAINING: flag(),
  SIM_MAX_IN_FLIGHT: flag(),
  SIM_HEAVY_LATENCY_MS: flag(),
};

export interface BudgetQuirkFlags {
  readonly SIM_WINDOW_LIMIT?: number | undefined;
  readonly SIM_SEND_REMAINING?: number | undefined;
  readonly SIM_MAX_IN_FLIGHT?: number | undefined;
  readonly SIM_HEAVY_LATENCY_MS?: number | undefined;
}

/** The quirks of a profile (`strict` or anything else: none), with the flags applied over them. */
export function budgetQuirksOf(profile: string, flags: BudgetQuirkFlags): BudgetQuirks {
  const base = profile === "strict" ? STRICT_BUDGET_QUIRKS : NO_BUDGET_QUIRKS;
  return {
    windowLimit: flags.SIM_WINDOW_LIMIT ?? base.windowLimit,
    sendRemaining: flags.SIM_SEND_REMAINING === undefined ? base.sendRemaining : flags.SIM_SEND_REMAINING > 0,
    maxInFlight: flags.SIM_MAX_IN_FLIGHT ?? base.maxInFlight,
    heavyLatencyMs: flags.SIM_HEAVY_LATENCY_MS ?? base.heavyLatencyMs,
  };
}

export function hasBudgetQuirks(quirks: BudgetQuirks): boolean {
  return quirks.windowLimit > 0 || quirks.maxInFlight > 0 || quirks.heavyLatencyMs > 0;
}
