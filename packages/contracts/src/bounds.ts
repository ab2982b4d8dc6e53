/**
 * The values two processes must agree on, written once. Each side's environment schema takes its
 * defaults and limits from here, and `deadlineOrderProblems` is the one check of their order: the
 * gateway, billing and every adapter run it at start, so a combination that would turn paid requests
 * into 503s or voided answers stops the process instead of surfacing mid-request.
 *
 * The chain, innermost first: one HTTP attempt (UPSTREAM_ATTEMPT_TIMEOUT_MS) fits in the upstream
 * deadline (adapters), which ends before the gateway stops waiting for the adapter
 * (ADAPTER_TIMEOUT_MS), which ends before
 * billing voids the request's debit (PENDING_DEBIT_MS, at most what billing accepts); the MCP
 * service's wait for a tool call's answer (GATEWAY_TIMEOUT_MS) outlasts the adapter wait. Raising one
 * link is a value edit here; the check then says which neighbour must move with it. Why these values:
 * docs/upstream.md#rate-limits and docs/operations.md#timeouts.
 */

const SECOND_MS = 1_000;
const DAY_SECONDS = 86_400;

export const DEADLINE_DEFAULTS = {
  /** UPSTREAM_ATTEMPT_TIMEOUT_MS (adapters): one HTTP attempt; heavy queries take seconds upstream. */
  upstreamAttemptMs: 20 * SECOND_MS,
  /** UPSTREAM_DEADLINE_MS (adapters): one upstream call, every attempt, wait and turn in the pacer's queue. */
  upstreamDeadlineMs: 30 * SECOND_MS,
  /** ADAPTER_TIMEOUT_MS (gateway): the upstream call's deadline and room to frame the reply. */
  adapterTimeoutMs: 35 * SECOND_MS,
  /**
   * PENDING_DEBIT_MS unset: ADAPTER_TIMEOUT_MS plus this, the time to write a large answer to a
   * slow client and settle it before billing would void the debit.
   */
  pendingDebitMarginMs: 20 * SECOND_MS,
  /**
   * GATEWAY_TIMEOUT_MS unset (MCP service): ADAPTER_TIMEOUT_MS plus this, how long a tool call waits
   * for the gateway's answer beyond the gateway's own wait for the adapter.
   */
  mcpMarginMs: 5 * SECOND_MS,
  /** BILLING_TIMEOUT_MS (gateway, portal): how long a caller waits for billing's reply. */
  billingTimeoutMs: 2 * SECOND_MS,
  /** REDIS_COMMAND_TIMEOUT_MS: a Redis command without an answer by then fails (billing answers 503). */
  redisCommandTimeoutMs: 1 * SECOND_MS,
} as const;

/**
 * An adapter working on a request longer than `everyMs` tells the gateway it is alive that often;
 * the gateway gives the request up as lost (502, refunded) after `silenceMs` without a word, so a
 * replica that dies mid-call costs its callers under two seconds whatever the call was allowed.
 */
export const ADAPTER_PROGRESS = { everyMs: 400, silenceMs: 1_500 } as const;

/** The deadline a debit may carry (`pending_ms` of billing.admit); billing refuses any other. */
export const PENDING_DEBIT_LIMITS = { minMs: 1 * SECOND_MS, maxMs: 600 * SECOND_MS } as const;

/**
 * The deadline a work debit may carry (`pending_ms` of billing.work.debit): long enough for the work
 * it pays for (an export page across several ack-wait periods, a monitor's batch across its retry
 * window), and well inside the debit record's life (LEDGER_RETENTION), so the voider always finds
 * the record it returns.
 */
export const WORK_DEBIT_LIMITS = { minMs: 1 * SECOND_MS, maxMs: 5 * DAY_SECONDS * SECOND_MS } as const;

/**
 * A work debit's deadline: the longest the work may take (`workMs`: an ack-wait, a retry window)
 * plus `periods` of the lease or ack wait that hands a dead worker's work to another, so a live
 * worker always settles first; within WORK_DEBIT_LIMITS.
 */
export function workDebitDeadlineMs(workMs: number, leaseMs: number, periods = 4): number {
  const wanted = workMs + periods * leaseMs;
  return Math.min(WORK_DEBIT_LIMITS.maxMs, Math.max(WORK_DEBIT_LIMITS.minMs, wanted));
}

/**
 * How long ledger records outlive the messages that refer to them. A refund waiting in the refund
 * stream names its debit record, so the stream must drop it before the record expires: a refund
 * applied after that would find no record and be dropped as `unknown_debit`.
 */
export const LEDGER_RETENTION = {
  /** A debit record (its state and what it debited) lives this long after admission. */
  debitRecordTtlSeconds: 14 * DAY_SECONDS,
  /** A top-up's idempotency marker. */
  topUpMarkerTtlSeconds: 30 * DAY_SECONDS,
  /** A refund not applied within this is dropped from the refund stream (its max age). */
  refundStreamMaxAgeMs: 7 * DAY_SECONDS * SECOND_MS,
} as const;

/** The deadlines as configured, each under the variable name its process reads. */
export interface Deadlines {
  readonly UPSTREAM_ATTEMPT_TIMEOUT_MS: number;
  readonly UPSTREAM_DEADLINE_MS: number;
  readonly ADAPTER_TIMEOUT_MS: number;
  readonly PENDING_DEBIT_MS: number;
  readonly GATEWAY_TIMEOUT_MS: number;
  readonly BILLING_TIMEOUT_MS: number;
  readonly REDIS_COMMAND_TIMEOUT_MS: number;
}

/** The default PENDING_DEBIT_MS for an adapter timeout. */
export function defaultPendingDebitMs(adapterTimeoutMs: number): number {
  return adapterTimeoutMs + DEADLINE_DEFAULTS.pendingDebitMarginMs;
}

/** The default GATEWAY_TIMEOUT_MS (MCP service) for an adapter timeout. */
export function defaultMcpGatewayTimeoutMs(adapterTimeoutMs: number): number {
  return adapterTimeoutMs + DEADLINE_DEFAULTS.mcpMarginMs;
}

/** The deadlines a process did not read take their defaults (and PENDING_DEBIT_MS its rule). */
export function deadlinesWithDefaults(given: Partial<Deadlines>): Deadlines {
  const adapterTimeoutMs = given.ADAPTER_TIMEOUT_MS ?? DEADLINE_DEFAULTS.adapterTimeoutMs;
  return {
    UPSTREAM_ATTEMPT_TIMEOUT_MS: given.UPSTREAM_ATTEMPT_TIMEOUT_MS ?? DEADLINE_DEFAULTS.upstreamAttemptMs,
    UPSTREAM_DEADLINE_MS: given.UPSTREAM_DEADLINE_MS ?? DEADLINE_DEFAULTS.upstreamDeadlineMs,
    ADAPTER_TIMEOUT_MS: adapterTimeoutMs,
    PENDING_DEBIT_MS: given.PENDING_DEBIT_MS ?? defaultPendingDebitMs(adapterTimeoutMs),
    GATEWAY_TIMEOUT_MS: given.GATEWAY_TIMEOUT_MS ?? defaultMcpGatewayTimeoutMs(adapterTimeoutMs),
    BILLING_TIMEOUT_MS: given.BILLING_TIMEOUT_MS ?? DEADLINE_DEFAULTS.billingTimeoutMs,
    REDIS_COMMAND_TIMEOUT_MS: given.REDIS_COMMAND_TIMEOUT_MS ?? DEADLINE_DEFAULTS.redisCommandTimeoutMs,
  };
}

/** One broken order: the variables it involves, and the sentence that says so. */
export interface DeadlineProblem {
  readonly names: readonly (keyof Deadlines)[];
  readonly sentence: string;
}

/**
 * Every way the deadlines break their order, one sentence each naming both variables; empty when
 * they are consistent. `readBy`: only the pairs whose two variables are both among these (those a
 * process reads: it checks each pair it can mend, and every pair has a process that reads both).
 */
export function deadlineOrderProblems(deadlines: Deadlines, readBy?: readonly string[]): string[] {
  return deadlineChecks(deadlines)
    .filter((problem) => !readBy || problem.names.every((name) => readBy.includes(name)))
    .map((problem) => problem.sentence);
}

function deadlineChecks(d: Deadlines): DeadlineProblem[] {
  const problems: DeadlineProblem[] = [];
  const broken = (names: (keyof Deadlines)[], sentence: string) => problems.push({ names, sentence });
  if (d.UPSTREAM_ATTEMPT_TIMEOUT_MS > d.UPSTREAM_DEADLINE_MS)
    broken(
      ["UPSTREAM_ATTEMPT_TIMEOUT_MS", "UPSTREAM_DEADLINE_MS"],
      `UPSTREAM_DEADLINE_MS (${d.UPSTREAM_DEADLINE_MS}) must be at least UPSTREAM_ATTEMPT_TIMEOUT_MS (${d.UPSTREAM_ATTEMPT_TIMEOUT_MS}), or no attempt can use its whole time.`,
    );
  if (d.UPSTREAM_DEADLINE_MS >= d.ADAPTER_TIMEOUT_MS)
    broken(
      ["UPSTREAM_DEADLINE_MS", "ADAPTER_TIMEOUT_MS"],
      `UPSTREAM_DEADLINE_MS (${d.UPSTREAM_DEADLINE_MS}) must be below ADAPTER_TIMEOUT_MS (${d.ADAPTER_TIMEOUT_MS}), or the gateway gives up on adapters still waiting for the upstream.`,
    );
  if (d.PENDING_DEBIT_MS <= d.ADAPTER_TIMEOUT_MS)
    broken(
      ["PENDING_DEBIT_MS", "ADAPTER_TIMEOUT_MS"],
      `PENDING_DEBIT_MS (${d.PENDING_DEBIT_MS}) must exceed ADAPTER_TIMEOUT_MS (${d.ADAPTER_TIMEOUT_MS}), or billing voids debits of answers still being written.`,
    );
  if (d.PENDING_DEBIT_MS < PENDING_DEBIT_LIMITS.minMs || d.PENDING_DEBIT_MS > PENDING_DEBIT_LIMITS.maxMs)
    broken(
      ["PENDING_DEBIT_MS", "ADAPTER_TIMEOUT_MS"],
      `PENDING_DEBIT_MS (${d.PENDING_DEBIT_MS}, by default ADAPTER_TIMEOUT_MS + ${DEADLINE_DEFAULTS.pendingDebitMarginMs}) must be from ${PENDING_DEBIT_LIMITS.minMs} to ${PENDING_DEBIT_LIMITS.maxMs}, the deadlines billing accepts.`,
    );
  if (d.GATEWAY_TIMEOUT_MS <= d.ADAPTER_TIMEOUT_MS)
    broken(
      ["GATEWAY_TIMEOUT_MS", "ADAPTER_TIMEOUT_MS"],
      `GATEWAY_TIMEOUT_MS (${d.GATEWAY_TIMEOUT_MS}) must exceed ADAPTER_TIMEOUT_MS (${d.ADAPTER_TIMEOUT_MS}), or MCP tool calls give up on answers the gateway still waits for and charges.`,
    );
  if (d.REDIS_COMMAND_TIMEOUT_MS >= d.BILLING_TIMEOUT_MS)
    broken(
      ["REDIS_COMMAND_TIMEOUT_MS", "BILLING_TIMEOUT_MS"],
      `REDIS_COMMAND_TIMEOUT_MS (${d.REDIS_COMMAND_TIMEOUT_MS}) must be below BILLING_TIMEOUT_MS (${d.BILLING_TIMEOUT_MS}), or callers give up on billing before it can answer that its store is down.`,
    );
  return problems;
}
