import { capturingLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness } from "./support/harness.ts";

const captured = capturingLogger("gateway");
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logger: captured.logger });
});
afterAll(async () => h.stop());

describe("gateway security", () => {
  it("never writes an API key to the logs, whichever header carries it and whatever the outcome", async () => {
    const key = await h.createKey({ balance: 1 });
    await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: { authorization: `Bearer ${key.key}` } });
    await fetch(`${h.url}/v1/posts?subreddit=${key.key}`, { headers: authHeaders(key) });
    await fetch(`${h.url}/v1/nothing/${key.key}`, { headers: authHeaders(key) });
    const lines = await waitFor(() => {
      const text = captured.lines();
      return text.split("\n").filter((line) => line.includes("request completed")).length >= 4
        ? text
        : undefined;
    }, "four access log lines");
    expect(lines).not.toContain(key.key);
    expect(lines).not.toContain(key.key.slice(4));
    expect(lines).toContain(key.id);
  });

  it("stops honouring a cached key within one second of its revocation, /mcp included", async () => {
    const key = await h.createKey({ balance: 10 });
    expect((await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) })).status).toBe(200);
    await h.revoke(key);
    await waitFor(
      async () => (await fetch(`${h.url}/mcp`, { method: "POST", headers: authHeaders(key) })).status === 401,
      "the /mcp gate to refuse the revoked key",
      1_000,
    );
  });

  it("refuses /mcp without a valid key before reaching the MCP service", async () => {
    const response = await fetch(`${h.url}/mcp`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: expect.any(String), code: "missing_api_key" });
  });
});
