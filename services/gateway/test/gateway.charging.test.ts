/**
 * What a debited request costs once it ends: settled when its answer was written, refunded when it
 * failed or its client left before the answer, and voided by billing when the gateway never said.
 * Plus the headers that describe the key's own bucket, and /mcp under the same per-key limit.
 */
import { request as httpRequest } from "node:http";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, OK_PAGE, startHarness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  // Debits pending longer than 1.5 s are voided; the adapter timeout is 500 ms.
  h = await startHarness({ gateway: { pendingDebitMs: 1_500 } });
});
afterEach(() => h.setAdapter(OK_PAGE));
afterAll(async () => h.stop());

describe("charging a served request", () => {
  it("keeps the credit of an answered request past the pending deadline: the debit was settled", async () => {
    const key = await h.createKey({ balance: 5 });
    expect((await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) })).status).toBe(200);
    // Settled: no debit is left pending, so none can be voided at its deadline. An unsettled one
    // stays pending until billing voids it (refunding the credit), and the balance below shows it.
    await waitFor(async () => (await h.pendingDebits()) === 0, "no debit pending", 5_000);
    expect(await h.balanceOf(key)).toBe(4);
    expect((await h.journal(key)).map((entry) => entry.type)).toEqual(["grant", "debit"]);
  });

  it("refunds a client that hangs up before its answer is ready", async () => {
    const key = await h.createKey({ balance: 5 });
    let answer: () => void = () => {};
    h.setAdapter(() => "silent");
    const aborted = new Promise<void>((resolve) => {
      const outgoing = httpRequest(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
      outgoing.on("error", () => resolve());
      answer = () => outgoing.destroy();
      outgoing.end();
    });
    await waitFor(async () => (await h.balanceOf(key)) === 4, "the debit");
    answer();
    await aborted;
    await waitFor(async () => (await h.balanceOf(key)) === 5, "the refund after the hang-up", 5_000);
    expect((await h.journal(key)).map((entry) => entry.type)).toEqual(["grant", "debit", "refund"]);
  });
});

describe("RateLimit headers", () => {
  it("describe the key's own bucket on a 200, a 402 and a 429, and are absent on a 401", async () => {
    const key = await h.createKey({ balance: 1, qps: 1, burst: 3 });
    const first = await fetch(`${h.url}/v1/users/someone`, { headers: authHeaders(key) });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"per-key";q=3;w=3');
    expect(first.headers.get("ratelimit")).toMatch(/^"per-key";r=2;t=[12]$/);
    const broke = await fetch(`${h.url}/v1/users/someone`, { headers: authHeaders(key) });
    expect(broke.status).toBe(402);
    expect(broke.headers.get("ratelimit")).toMatch(/^"per-key";r=[01];t=[1-3]$/);
    let limited = broke;
    while (limited.status !== 429)
      limited = await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) });
    expect(limited.headers.get("ratelimit")).toMatch(/^"per-key";r=0;t=[1-3]$/);
    expect(limited.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    const anonymous = await fetch(`${h.url}/v1/account`, { headers: authHeaders(`rdk_${"q".repeat(43)}`) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("ratelimit")).toBeNull();
    expect(anonymous.headers.get("ratelimit-policy")).toBeNull();
  });
});

describe("/mcp under the per-key limit", () => {
  const post = (key: { key: string }, body: unknown) =>
    fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: { ...authHeaders(key.key), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const listTools = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
  const callTool = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "check_credits" },
  });

  it("spends one token per message that is not a tool call, and refuses a batch beyond the key's burst with 429", async () => {
    const key = await h.createKey({ balance: 0, qps: 1, burst: 5 });
    // The MCP service is not running here: a request the gate lets through gets 503 from the proxy.
    expect((await post(key, [listTools(1), listTools(2), listTools(3)])).status).toBe(503);
    const refused = await post(key, [listTools(4), listTools(5), listTools(6)]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  });

  it("lets tool calls through the gate without a token: they pay at their inner /v1 call", async () => {
    const key = await h.createKey({ balance: 0, qps: 1, burst: 1 });
    for (let i = 0; i < 3; i++) expect((await post(key, callTool(i))).status).toBe(503);
    expect((await post(key, listTools(9))).status).toBe(503);
    expect((await post(key, listTools(10))).status).toBe(429);
  });
});
