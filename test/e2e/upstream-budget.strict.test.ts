/**
 * The product inside the upstream's real budget (docs/upstream.md#rate-limits), against the
 * simulator's strict budget quirks: a window of requests per minute, busy refusals past two in
 * flight, heavy queries that take long. Several customers at once ask more than the budget holds.
 * They get answers or 429 with `x-ratelimit-scope: global` and an honest Retry-After, almost never
 * a 502; the simulator's own counters show the product never went past its window or its limit in
 * flight; and the credits charged are exactly the 200s served.
 */
import { UPSTREAM_BUDGET_DEFAULTS } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BudgetCounters } from "../../services/upstream-sim/src/index.ts";
import { withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

const WINDOW_LIMIT = 24;
const MAX_IN_FLIGHT = 2;
const LOAD_MS = 14_000;
const CUSTOMERS = 4;
const LOOPS_PER_CUSTOMER = 3;
const CREDITS = 200;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    simulatorBudget: {
      windowLimit: WINDOW_LIMIT,
      sendRemaining: true,
      maxInFlight: MAX_IN_FLIGHT,
      heavyLatencyMs: 600,
    },
    // The product's own default: the pacer sized to the real upstream.
    upstreamBudget: {
      requestsPerSecond: UPSTREAM_BUDGET_DEFAULTS.requestsPerSecond,
      concurrency: UPSTREAM_BUDGET_DEFAULTS.concurrency,
    },
    upstreamDeadlineMs: 8_000,
    upstreamAttemptMs: 5_000,
  });
}, 60_000);
afterAll(async () => stack?.stop());

interface Answer {
  readonly status: number;
  readonly scope: string | null;
  readonly retryAfter: string | null;
  readonly charged: boolean;
  /** Seconds until the next minute boundary (the simulator's window) when the answer came. */
  readonly secondsToWindowEnd: number;
}

async function simStats(): Promise<{ total: number; budget: BudgetCounters }> {
  return (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json() as never;
}

describe("the product under the upstream's strict budget", () => {
  it("answers or says 429 global, stays inside the window and the cap in flight, and charges exactly the 200s", async () => {
    const subreddits = stack.simulator.probe.subredditNames();
    const posts = stack.simulator.probe.posts({}, 40);
    const user = stack.simulator.probe.knownUser().author;
    const paths = [
      (n: number) => `/v1/posts?subreddit=${subreddits[n % subreddits.length]}&limit=${5 + (n % 20)}`,
      (n: number) => `/v1/comments/tree?post_id=${posts[n % posts.length]!.id}&limit=${10 + (n % 30)}`,
      () => `/v1/users/${user}`,
      (n: number) => `/v1/subreddits/${subreddits[n % subreddits.length]}/rules`,
    ];
    const keys = await Promise.all(
      Array.from({ length: CUSTOMERS }, () => stack.createKey({ credits: CREDITS, qps: 100, burst: 100 })),
    );
    const answers: Answer[] = [];
    let sequence = 0;
    const stopAt = Date.now() + LOAD_MS;
    const before = await simStats();
    const startedAt = Date.now();
    const loop = async (key: string) => {
      while (Date.now() < stopAt) {
        sequence += 1;
        const path = paths[sequence % paths.length]!(sequence);
        const response = await fetch(`${stack.gatewayUrl}${path}`, { headers: withKey(key) });
        await response.arrayBuffer();
        const refunded = response.headers.get("x-credits-refunded");
        answers.push({
          status: response.status,
          scope: response.headers.get("x-ratelimit-scope"),
          retryAfter: response.headers.get("retry-after"),
          charged: response.status === 200 && refunded === null,
          secondsToWindowEnd: 60 - (Math.floor(Date.now() / 1000) % 60),
        });
        // A polite client waits as told, within reason, so the test keeps asking through its run.
        if (response.status === 429) await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    await Promise.all(keys.flatMap((key) => Array.from({ length: LOOPS_PER_CUSTOMER }, () => loop(key.key))));
    const seconds = (Date.now() - startedAt) / 1000;
    const after = await simStats();

    const byStatus: Record<string, Answer[]> = {};
    for (const answer of answers) byStatus[answer.status] = [...(byStatus[answer.status] ?? []), answer];
    const oks = byStatus["200"]?.length ?? 0;
    const limited = byStatus["429"] ?? [];
    const failed = byStatus["502"]?.length ?? 0;
    console.info(
      `strict budget: ${answers.length} answers ${JSON.stringify(Object.fromEntries(Object.entries(byStatus).map(([s, a]) => [s, a.length])))}`,
    );
    // Several customers asked more than the budget holds: some served, some told to wait.
    expect(oks).toBeGreaterThan(5);
    expect(limited.length).toBeGreaterThan(0);
    expect(Object.keys(byStatus).filter((status) => !["200", "429", "502"].includes(status))).toEqual([]);
    expect(failed / answers.length).toBeLessThanOrEqual(0.02);
    for (const answer of limited) {
      expect(answer.scope).toBe("global");
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
      // Honest: the end of the upstream's window (60 s on minute boundaries), give or take its
      // rounding: the upstream's seconds left are whole (rounded up), and so is Retry-After.
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(answer.secondsToWindowEnd + 2);
    }

    // The simulator's own counters: the product never went past its window or its cap in flight.
    expect(after.budget.rate_limited).toBe(0);
    expect(after.budget.busy_refusals).toBe(0);
    expect(after.budget.peak_in_flight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    expect(after.budget.peak_in_window).toBeLessThanOrEqual(WINDOW_LIMIT);
    const upstreamPerSecond = (after.total - before.total) / seconds;
    expect(upstreamPerSecond).toBeLessThanOrEqual(UPSTREAM_BUDGET_DEFAULTS.requestsPerSecond + 0.5);

    // Exactly the 200s were charged: every 429 and 502 was free or refunded.
    const balances = await Promise.all(keys.map((key) => stack.balanceOf(key.id)));
    const charged = balances.reduce((sum, balance) => sum + (CREDITS - balance), 0);
    expect(answers.filter((answer) => answer.charged)).toHaveLength(oks);
    expect(charged).toBe(oks);
  }, 90_000);
});
