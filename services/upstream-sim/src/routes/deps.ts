import type { BudgetGate } from "../budget/budget-gate.ts";
import type { Corpus } from "../corpus/types.ts";
import type { FaultRegistry } from "../faults/fault-registry.ts";
import type { HeldRequests } from "../faults/held-requests.ts";
import type { RequestStats } from "../http/request-stats.ts";
import type { SimQuirks } from "../profile.ts";
import type { Query } from "../query/params.ts";
import { ParamReader } from "../query/params.ts";
import type { TransientEmptyPages } from "../quirks/data-quirks.ts";
import type { Renderer } from "../render/renderer.ts";

/** Everything the routes share; built once per app in app.ts. */
export interface SimDeps {
  readonly corpus: Corpus;
  readonly renderer: Renderer;
  /** Epoch milliseconds. */
  readonly clock: () => number;
  readonly latencyMs: number;
  readonly faults: FaultRegistry;
  readonly stats: RequestStats;
  readonly held: HeldRequests;
  /** The profile's quirks (profile.ts). */
  readonly quirks: SimQuirks;
  readonly emptyPages: TransientEmptyPages;
  /** The budget quirks (budget/budget-quirks.ts); absent when none is on. */
  readonly budget?: BudgetGate;
}

function nowSeconds(deps: SimDeps): number {
  return Math.floor(deps.clock() / 1000);
}

/** A parameter reader over the request's query string, at the current time. */
export function readerFor(deps: SimDeps, query: unknown): ParamReader {
  return new ParamReader((query ?? {}) as Query, nowSeconds(deps));
}
