import { describe, expect, it } from "vitest";
import {
  DEADLINE_DEFAULTS,
  deadlineOrderProblems,
  deadlinesWithDefaults,
  LEDGER_RETENTION,
  PENDING_DEBIT_LIMITS,
} from "../src/index.ts";

describe("the bounds processes share", () => {
  it("are consistent at their defaults", () => {
    expect(deadlineOrderProblems(deadlinesWithDefaults({}))).toEqual([]);
    const defaults = deadlinesWithDefaults({});
    expect(defaults.PENDING_DEBIT_MS).toBeLessThanOrEqual(PENDING_DEBIT_LIMITS.maxMs);
    expect(defaults.PENDING_DEBIT_MS).toBe(
      DEADLINE_DEFAULTS.adapterTimeoutMs + DEADLINE_DEFAULTS.pendingDebitMarginMs,
    );
    // Attempt, call, the gateway's wait, a pending debit; and the MCP service's wait past the gateway's.
    expect([
      defaults.UPSTREAM_ATTEMPT_TIMEOUT_MS,
      defaults.UPSTREAM_DEADLINE_MS,
      defaults.ADAPTER_TIMEOUT_MS,
      defaults.PENDING_DEBIT_MS,
      defaults.GATEWAY_TIMEOUT_MS,
    ]).toEqual([20_000, 30_000, 35_000, 55_000, 40_000]);
  });

  it("refuse an attempt longer than the call it belongs to", () => {
    expect(
      deadlineOrderProblems(
        deadlinesWithDefaults({ UPSTREAM_ATTEMPT_TIMEOUT_MS: 31_000, UPSTREAM_DEADLINE_MS: 30_000 }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^UPSTREAM_DEADLINE_MS \(30000\) must be at least UPSTREAM_ATTEMPT_TIMEOUT_MS \(31000\)/,
      ),
    ]);
  });

  it("drop a refund from the stream before its debit record expires", () => {
    expect(LEDGER_RETENTION.refundStreamMaxAgeMs).toBeLessThan(
      LEDGER_RETENTION.debitRecordTtlSeconds * 1_000,
    );
  });

  it("name both variables of every broken order in one sentence", () => {
    const problems = deadlineOrderProblems(
      deadlinesWithDefaults({
        UPSTREAM_DEADLINE_MS: 25_000,
        ADAPTER_TIMEOUT_MS: 20_000,
        PENDING_DEBIT_MS: 15_000,
        GATEWAY_TIMEOUT_MS: 10_000,
        BILLING_TIMEOUT_MS: 1_000,
      }),
    );
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^UPSTREAM_DEADLINE_MS \(25000\) must be below ADAPTER_TIMEOUT_MS \(20000\)/);
    expect(problems[1]).toMatch(/^PENDING_DEBIT_MS \(15000\) must exceed ADAPTER_TIMEOUT_MS \(20000\)/);
    expect(problems[2]).toMatch(/^GATEWAY_TIMEOUT_MS \(10000\) must exceed ADAPTER_TIMEOUT_MS \(20000\)/);
    expect(problems[3]).toMatch(
      /^REDIS_COMMAND_TIMEOUT_MS \(1000\) must be below BILLING_TIMEOUT_MS \(1000\)/,
    );
    for (const problem of problems) expect(problem.split(/\.\s/)).toHaveLength(1);
  });

  it("refuse a pending-debit deadline billing would not accept, even when its default is taken", () => {
    const problems = deadlineOrderProblems(
      deadlinesWithDefaults({
        UPSTREAM_ATTEMPT_TIMEOUT_MS: 1_000,
        UPSTREAM_DEADLINE_MS: 1_000,
        ADAPTER_TIMEOUT_MS: 590_000,
        GATEWAY_TIMEOUT_MS: 620_000,
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^PENDING_DEBIT_MS \(610000, by default ADAPTER_TIMEOUT_MS/),
    ]);
  });
});
