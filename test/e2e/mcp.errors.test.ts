/**
 * A tool call that fails says honestly whose failure it was, through the whole stack: an agent on the
 * gateway's /mcp reads our spent upstream budget (429 `global_rate_limited`) differently from the data
 * source's own refusal (429 `upstream_rate_limited`), and our outage (503 `service_unavailable`)
 * differently from the data source failing (502 `upstream_unavailable`). Each names its code in the
 * text and in `_meta` (docs/api.md#mcp-endpoint-errors), says nothing was charged, which the
 * ledger confirms, and says when to call again from the answer's Retry-After.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisPacer } from "../../packages/upstream-client/src/index.ts";
import { ERROR_META_KEY, type ToolErrorMeta } from "../../services/mcp/src/results/tool-errors.ts";
import { connectMcpClient, firstText } from "../../services/mcp/test/support/mcp-client.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";

/** One place in flight, and a customer told "our budget is spent" after half a second without a turn. */
const BUDGET = { requestsPerSecond: 100, concurrency: 1, interactiveWaitMs: 500 };
const CREDITS = 100;

let stack: Stack;
let agent: Client;
let keyId: string;
/** A community per test, so no test's answer is another's. */
let communities: string[];

beforeAll(async () => {
  stack = await startStack({ upstreamBudget: BUDGET });
  const key = await stack.createKey({ credits: CREDITS });
  keyId = key.id;
  agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, key.key);
  communities = stack.simulator.corpus.subreddits.slice(0, 4).map((subreddit) => subreddit.name);
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await stack?.stop();
});

async function simulatorRequests(): Promise<number> {
  return ((await (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json()) as { total: number }).total;
}

interface Failed {
  text: string;
  meta: ToolErrorMeta | undefined;
}

async function searchPosts(subreddit: string, by = agent): Promise<Failed & { isError: boolean }> {
  const result = await by.callTool({ name: "search_posts", arguments: { subreddit, limit: 5 } });
  return {
    isError: result.isError === true,
    text: firstText(result),
    meta: (result._meta as Record<string, ToolErrorMeta> | undefined)?.[ERROR_META_KEY],
  };
}

describe("a failed tool call names whose failure it was, through the gateway's /mcp", () => {
  it("says our shared budget had no turn (global_rate_limited), sends nothing upstream, charges nothing, and answers once a turn is free", async () => {
    // Another account's request holds the budget's one place in flight for the whole call.
    const other = createRedisPacer(stack.redis, stack.keys.upstreamPacer, BUDGET);
    const held = await other.turn({ waitUntilMs: Date.now() + 5_000, account: "acct_other" });
    if (!held.granted) throw new Error("the test could not take the budget's place");
    const sent = await simulatorRequests();
    let refused: Awaited<ReturnType<typeof searchPosts>>;
    try {
      refused = await searchPosts(communities[0] as string);
    } finally {
      held.finish();
    }
    expect(refused.isError, refused.text).toBe(true);
    expect(refused.meta?.code).toBe("global_rate_limited");
    const wait = refused.meta?.retry_after_seconds ?? 0;
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(refused.text).toBe(
      `The service's own budget of requests to the data source, which every account shares, had no turn for this call in time (global_rate_limited). This key's own limit is not the cause, and nothing was sent to the data source. Nothing was charged: any credit taken for this call was refunded. Wait ${wait} second${wait === 1 ? "" : "s"} and call again; calling sooner is refused the same way.`,
    );
    expect(refused.meta?.request_id).toMatch(/\S/);
    expect(await simulatorRequests()).toBe(sent);
    expect(await stack.balanceOf(keyId)).toBe(CREDITS);

    const answered = await searchPosts(communities[0] as string);
    expect(answered.isError, answered.text).toBe(false);
    expect(await stack.balanceOf(keyId)).toBe(CREDITS - 1);
  });

  it("says the service itself is briefly down (service_unavailable), not the data source, while billing is", async () => {
    // A key the gateway has just looked up, so its cache still knows it while billing is down: the
    // call reaches the MCP service, and the data request behind it finds no billing to admit it.
    const fresh = await stack.createKey({ credits: CREDITS });
    const outage = await connectMcpClient(`${stack.gatewayUrl}/mcp`, fresh.key);
    await stack.stopBilling();
    let refused: Awaited<ReturnType<typeof searchPosts>>;
    try {
      refused = await searchPosts(communities[1] as string, outage);
    } finally {
      await stack.startBilling();
      await outage.close();
    }
    expect(refused.isError, refused.text).toBe(true);
    expect(refused.meta?.code).toBe("service_unavailable");
    const wait = refused.meta?.retry_after_seconds ?? 0;
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(refused.text).toBe(
      `The service is briefly unavailable on its own side (service_unavailable); the data source is not at fault. Nothing was charged. Wait ${wait} second${wait === 1 ? "" : "s"} and call again.`,
    );
    expect(await stack.balanceOf(fresh.id)).toBe(CREDITS);
  });

  it("says the data source is failing (upstream_unavailable) when it answers errors, and refunds the credit", async () => {
    const before = await stack.balanceOf(keyId);
    await stack.fault({ mode: "error", path: "/api/posts/search" });
    let failed: Awaited<ReturnType<typeof searchPosts>>;
    try {
      failed = await searchPosts(communities[2] as string);
    } finally {
      await stack.clearFaults();
    }
    expect(failed.isError, failed.text).toBe(true);
    expect(failed.meta).toMatchObject({ code: "upstream_unavailable", retry_after_seconds: null });
    expect(failed.text).toBe(
      "The data source is failing or unreachable right now, after retries (upstream_unavailable). Nothing was charged: any credit taken for this call was refunded. Call again in a few seconds; if it keeps failing, try later.",
    );
    expect(await stack.balanceOf(keyId)).toBe(before);
  });

  // Last: the upstream's refusal closes the budget's window until the minute turns.
  it("says the data source itself refused us (upstream_rate_limited), with its own reset as the wait", async () => {
    const before = await stack.balanceOf(keyId);
    await stack.fault({ mode: "ratelimit", path: "/api/posts/search" });
    let refused: Awaited<ReturnType<typeof searchPosts>>;
    try {
      refused = await searchPosts(communities[3] as string);
    } finally {
      await stack.clearFaults();
    }
    expect(refused.isError, refused.text).toBe(true);
    expect(refused.meta?.code).toBe("upstream_rate_limited");
    // The upstream's own reset: the end of its minute window.
    const wait = refused.meta?.retry_after_seconds ?? 0;
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(61);
    expect(refused.text).toBe(
      `The data source itself is rate limiting this service and refused the call (upstream_rate_limited); neither this key's limit nor the service's own budget is the cause. Nothing was charged: any credit taken for this call was refunded. Wait ${wait} second${wait === 1 ? "" : "s"}, when the data source's limit allows requests again, and call again.`,
    );
    expect(await stack.balanceOf(keyId)).toBe(before);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });
});
