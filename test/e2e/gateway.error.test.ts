import { waitFor } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, expectErrorBody, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ upstreamDeadlineMs: 1_000 });
  key = (await stack.createKey({ credits: 1_000 })).key;
});
afterEach(async () => stack.clearFaults());
afterAll(async () => stack.stop());

describe("refusals that are never charged", () => {
  it("returns 400 with a message naming the parameter, and the balance is unchanged", async () => {
    const before = await balanceOf(stack.gatewayUrl, key);
    for (const path of [
      "/v1/posts",
      "/v1/posts?subreddit=rust&limit=0",
      "/v1/comments/tree?post_id=!!",
      "/v1/users/x",
    ]) {
      const result = await getJson(`${stack.gatewayUrl}${path}`, withKey(key));
      expect(result.status, path).toBe(400);
      expectErrorBody(result.body);
    }
    const missing = await getJson(`${stack.gatewayUrl}/v1/posts?limit=5`, withKey(key));
    expect(missing.body.error).toContain("subreddit");
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(before);
  });

  it("returns 401 for a missing, malformed, unknown or revoked key on data, account and /mcp", async () => {
    const unknown = `rdk_${"x".repeat(43)}`;
    for (const headers of [{}, withKey("secret"), withKey(unknown), withKey(unknown, "bearer")]) {
      for (const path of ["/v1/posts?subreddit=rust", "/v1/account"]) {
        const result = await getJson(`${stack.gatewayUrl}${path}`, headers);
        expect(result.status).toBe(401);
        expectErrorBody(result.body);
      }
    }
    const mcp = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(mcp.status).toBe(401);
  });

  it("returns 402 with the top-up link when the balance is 0, and debits nothing", async () => {
    const empty = await stack.createKey({ credits: 0 });
    const result = await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(empty.key));
    expect(result.status).toBe(402);
    expectErrorBody(result.body);
    expect(result.body.error).toContain("https://example.com/topup");
    expect(await balanceOf(stack.gatewayUrl, empty.key)).toBe(0);
  });

  it("returns 404 for unknown paths and 405 with allow: GET for other methods", async () => {
    const notFound = await getJson(`${stack.gatewayUrl}/v1/unknown`, withKey(key));
    expect(notFound.status).toBe(404);
    expectErrorBody(notFound.body);
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const response = await fetch(`${stack.gatewayUrl}/v1/account`, { method, headers: withKey(key) });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET");
      expectErrorBody((await response.json()) as Record<string, unknown>);
    }
  });
});

describe("failures after the debit", () => {
  it("answers 502 when the upstream keeps failing and refunds the credit", async () => {
    const own = (await stack.createKey({ credits: 10 })).key;
    await stack.fault({ mode: "error", rate: 1, path: "/api/users" });
    const result = await getJson(`${stack.gatewayUrl}/v1/users/anyone_at_all`, withKey(own));
    expect(result.status).toBe(502);
    expectErrorBody(result.body);
    await waitFor(async () => (await balanceOf(stack.gatewayUrl, own)) === 10, "the refund to land");
  });

  it("answers 429 with x-ratelimit-scope global when the upstream rate limit cannot be waited out, refunded", async () => {
    const own = (await stack.createKey({ credits: 10 })).key;
    await stack.fault({ mode: "ratelimit", rate: 1, path: "/api/subreddits" });
    const result = await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=ab`, withKey(own));
    expect(result.status).toBe(429);
    expect(result.headers.get("x-ratelimit-scope")).toBe("global");
    expect(result.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    await waitFor(async () => (await balanceOf(stack.gatewayUrl, own)) === 10, "the refund to land");
  });
});

describe("revocation", () => {
  it("refuses a revoked key with 401 within one second on a running gateway, on every endpoint", async () => {
    const victim = await stack.createKey({ credits: 10 });
    expect((await getJson(`${stack.gatewayUrl}/v1/account`, withKey(victim.key))).status).toBe(200);
    const mcpBefore = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "DELETE",
      headers: withKey(victim.key),
    });
    expect(mcpBefore.status).not.toBe(401);
    await stack.revokeKey(victim.id);
    // The gateway's key cache learns of it from the revocation event; one second is the promise.
    await waitFor(
      async () =>
        (await fetch(`${stack.gatewayUrl}/mcp`, { method: "DELETE", headers: withKey(victim.key) }))
          .status === 401,
      "the /mcp gate to refuse the key",
      1_000,
    );
    expect((await getJson(`${stack.gatewayUrl}/v1/account`, withKey(victim.key))).status).toBe(401);
    // Data and account requests are refused by billing itself (the debit checks the revoked flag).
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(victim.key))).status).toBe(401);
  });
});

describe("rotation", () => {
  it("refuses the old secret with 401 within one second while the new one spends the same balance", async () => {
    const rotating = await stack.createKey({ credits: 10 });
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(rotating.key))).status).toBe(200);
    const fresh = await stack.rotateKey(rotating.id);
    await waitFor(
      async () => (await getJson(`${stack.gatewayUrl}/v1/account`, withKey(rotating.key))).status === 401,
      "the old secret to be refused",
      1_000,
    );
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(rotating.key))).status).toBe(401);
    expect(await balanceOf(stack.gatewayUrl, fresh)).toBe(9);
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(fresh))).status).toBe(200);
    expect(await balanceOf(stack.gatewayUrl, fresh)).toBe(8);
  });
});
