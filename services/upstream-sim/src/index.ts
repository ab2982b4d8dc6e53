/**
 * @rda/upstream-sim: a deterministic stand-in for the upstream Reddit data API.
 * See README.md for what it serves and how to inject faults.
 */
export { buildSimApp, type SimAppOptions } from "./app.ts";
export type { BudgetCounters } from "./budget/budget-gate.ts";
export {
  type BudgetQuirks,
  budgetQuirksOf,
  NO_BUDGET_QUIRKS,
  STRICT_BUDGET_QUIRKS,
} from "./budget/budget-quirks.ts";
export { type CorpusOptions, DEFAULT_SEED, generateCorpus } from "./corpus/corpus.ts";
export type { Corpus, Rule, UserMeta, UserRecord } from "./corpus/types.ts";
export { FAULT_MODES, type FaultMode, type FaultSpec, faultSpecSchema } from "./faults/fault-registry.ts";
export { CorpusProbe, type PostInfo, type PostQuery } from "./probe.ts";
export {
  PROFILE_QUIRKS,
  resolveQuirks,
  SIM_PROFILES,
  type SimProfile,
  type SimQuirks,
} from "./profile.ts";
export { parseDate } from "./query/dates.ts";
export { type RunningSimulator, type StartOptions, startSimulator } from "./start.ts";
