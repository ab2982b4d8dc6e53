/**
 * The product inside the upstream's real budget (docs/upstream.md#rate-limits), against the
 * simulator's strict budget quirks: a window of requests per minute (its remaining count sent),
 * busy refusals past two in flight, heavy queries that take long. Several customers at once ask more
 * than the budget holds. They get answers or 429 with `x-ratelimit-scope: global` and an honest
 * Retry-After, each 429 naming whose limit it was: `global_rate_limited` when our own budget had no
 * turn in time, `upstream_rate_limited` only once the upstream reported its window spent; never a
 * 502, as the upstream never failed. The gateways' and adapters' metrics tell the same two apart;
 * the simulator's own counters show the product never went past its window or its limit in flight;
 * and the credits charged are exactly the 200s served.
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
  readonly code: string | undefined;
  readonly scope: string | null;
  readonly retryAfter: string | null;
  readonly charged: boolean;
  /** Seconds until the next minute boundary (the simulator's window) when the answer came. */
  readonly secondsToWindowEnd: number;
}

async function simStats(): Promise<{ total: number; faults_injected: number; budget: BudgetCounters }> {
  return (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json() as never;
}

describe("the product under the upstream's strict budget", () => {
  it("answers or says 429 global naming whose limit it was (never a 502), stays inside the window and the cap in flight, and charges exactly the 200s", async () => {
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
    const counted = {
      budgetRefusals: await stack.metric("gateway_rate_limited_total", { scope: "global" }),
      budgetSpent: await stack.metric("gateway_adapter_outcomes_total", { outcome: "budget_spent" }),
      upstreamRefusals: await stack.metric("gateway_adapter_outcomes_total", { outcome: "rate_limited" }),
      windowSpentTurns: await stack.metric("upstream_pacer_turns_total", { outcome: "window_spent" }),
      grantedTurns: await stack.metric("upstream_pacer_turns_total", { outcome: "granted" }),
    };
    const startedAt = Date.now();
    const loop = async (key: string) => {
      while (Date.now() < stopAt) {
        sequence += 1;
        const path = paths[sequence % paths.length]!(sequence);
        const response = await fetch(`${stack.gatewayUrl}${path}`, { headers: withKey(key) });
        const body = (await response.json()) as { code?: string };
        const refunded = response.headers.get("x-credits-refunded");
        answers.push({
          status: response.status,
          code: body.code,
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
    const ours = limited.filter((answer) => answer.code === "global_rate_limited");
    const theirs = limited.filter((answer) => answer.code === "upstream_rate_limited");
    console.info(
      `strict budget: ${answers.length} answers ${JSON.stringify(Object.fromEntries(Object.entries(byStatus).map(([s, a]) => [s, a.length])))}, 429s: ${ours.length} our budget, ${theirs.length} the upstream's window`,
    );
    // Several customers asked more than the budget holds: some served, some told to wait.
    expect(oks).toBeGreaterThan(5);
    expect(limited.length).toBeGreaterThan(0);
    // The upstream never failed (no fault, no refusal of its own): nothing is blamed on it as a
    // failure, and every 429 names our budget or the window the upstream reported spent.
    expect(after.faults_injected - before.faults_injected).toBe(0);
    expect(Object.keys(byStatus).filter((status) => !["200", "429"].includes(status))).toEqual([]);
    expect(ours.length + theirs.length).toBe(limited.length);
    for (const answer of limited) {
      expect(answer.scope).toBe("global");
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    for (const answer of theirs) {
      // Honest: the end of the upstream's window (60 s on minute boundaries), give or take its
      // rounding: the upstream's seconds left are whole (rounded up), and so is Retry-After.
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(answer.secondsToWindowEnd + 2);
    }
    for (const answer of ours) {
      // Honest: about one turn round the accounts waiting, never the upstream's window.
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(
        UPSTREAM_BUDGET_DEFAULTS.interactiveWaitMs / 1000,
      );
    }
    // The metrics tell the two apart as the answers did: our budget's refusals by the gateway's
    // global scope and the adapters' budget_spent, the upstream's window by the adapters'
    // rate_limited, which the pacer's window_spent turns (nothing sent) caused; and every request
    // the simulator served took a granted turn.
    const metric = async (name: string, labels: Record<string, string>, from: number) =>
      (await stack.metric(name, labels)) - from;
    expect(await metric("gateway_rate_limited_total", { scope: "global" }, counted.budgetRefusals)).toBe(
      ours.length,
    );
    expect(
      await metric("gateway_adapter_outcomes_total", { outcome: "budget_spent" }, counted.budgetSpent),
    ).toBe(ours.length);
    expect(
      await metric("gateway_adapter_outcomes_total", { outcome: "rate_limited" }, counted.upstreamRefusals),
    ).toBe(theirs.length);
    const windowSpent = await metric(
      "upstream_pacer_turns_total",
      { outcome: "window_spent" },
      counted.windowSpentTurns,
    );
    expect(windowSpent > 0).toBe(theirs.length > 0);
    expect(await metric("upstream_pacer_turns_total", { outcome: "granted" }, counted.grantedTurns)).toBe(
      after.total - before.total,
    );

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
