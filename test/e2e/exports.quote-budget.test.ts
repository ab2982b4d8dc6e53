/**
 * An export quote reads the archive on turns of the one upstream budget (docs/api.md#exports), so it
 * is refused, uncharged and with an honest Retry-After, when a turn cannot be had, and the refusal
 * names whose limit it is: 429 `global_rate_limited` while our own budget is spent (no turn came in
 * time; nothing was sent), 429 `upstream_rate_limited` when the data source itself refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisPacer } from "../../packages/upstream-client/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { call, type ExportsBeside, jobOf, startExportsBeside } from "./exports.support.ts";

const DAY = 86_400;
/** One place in flight, and a customer told "our budget is spent" after half a second without a turn. */
const BUDGET = { requestsPerSecond: 100, concurrency: 1, interactiveWaitMs: 500 };

let stack: Stack;
let exportsService: ExportsBeside;
beforeAll(async () => {
  stack = await startStack({ upstreamBudget: BUDGET });
  exportsService = await startExportsBeside(stack);
}, 120_000);
afterAll(async () => {
  await exportsService?.stop();
  await stack?.stop();
});

async function simulatorRequests(): Promise<number> {
  return ((await (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json()) as { total: number }).total;
}

const before = Math.floor(Date.now() / 1000) - 10 * DAY;
const quoteBody = { kind: "posts", subreddit: "dataisbeautiful", after: before - 2 * DAY, before };

describe("an export quote and the upstream budget", () => {
  it("answers 429 global_rate_limited with Retry-After, uncharged and sending nothing, while our budget is spent; quoted once it is free", async () => {
    const { key, id } = await stack.createKey({ credits: 100 });
    // Another account's request holds the budget's one place in flight for the whole quote.
    const other = createRedisPacer(stack.redis, stack.keys.upstreamPacer, BUDGET);
    const held = await other.turn({ waitUntilMs: Date.now() + 5_000, account: "acct_other" });
    if (!held.granted) throw new Error("the test could not take the budget's place");
    const sent = await simulatorRequests();
    let refused: Awaited<ReturnType<typeof call>>;
    try {
      refused = await call(stack, key, "POST", "/v1/exports", quoteBody);
    } finally {
      held.finish();
    }
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body.code).toBe("global_rate_limited");
    expect(String(refused.body.error)).toMatch(/our shared budget of requests to the data source is spent/);
    expect(refused.headers.get("x-ratelimit-scope")).toBe("global");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await simulatorRequests()).toBe(sent);
    expect(await stack.balanceOf(id)).toBe(100);

    const quoted = await call(stack, key, "POST", "/v1/exports", quoteBody);
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(201);
    expect(jobOf(quoted).state).toBe("quoted");
    expect(await stack.balanceOf(id)).toBe(100);
  });

  // Last: the upstream's refusal closes the budget's window until the minute turns.
  it("answers 429 upstream_rate_limited, uncharged, when the data source itself refuses the quote's reads", async () => {
    const { key, id } = await stack.createKey({ credits: 100 });
    await stack.fault({ mode: "ratelimit", path: "/api/posts/search" });
    try {
      const refused = await call(stack, key, "POST", "/v1/exports", quoteBody);
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body.code).toBe("upstream_rate_limited");
      expect(String(refused.body.error)).toMatch(/the data source is rate limiting us/);
      expect(refused.headers.get("x-ratelimit-scope")).toBe("global");
      // The upstream's own reset: the end of its minute window.
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(61);
      expect(await stack.balanceOf(id)).toBe(100);
    } finally {
      await stack.clearFaults();
    }
  });
});
