import { waitFor } from "@rda/service-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createUpstreamClient } from "../src/index.ts";
import { json, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fastRetries = { backoffBaseMs: 5, backoffCapMs: 20, busyWaitMs: 5 };

describe("upstream client over HTTP", () => {
  it("sends requests under the base URL's path prefix with the query as given", async () => {
    server = await startScriptedServer((_request, response) => json(response, 200, { data: [] }));
    const client = createUpstreamClient({ baseUrl: `${server.url}/mirror/as/` });
    const result = await client.get("/api/posts/search", {
      subreddit: "pics",
      limit: 5,
      sort: "asc",
      after: undefined,
    });
    await client.close();
    expect(result).toMatchObject({ outcome: "ok", attempts: 1, retries: 0 });
    expect(server.paths).toEqual([
      "/mirror/as/api/posts/search?subreddit=pics&limit=5&sort=asc&meta-app=reddit-data-api",
    ]);
  });

  it("coalesces identical concurrent calls into one upstream request", async () => {
    const held: Array<() => void> = [];
    server = await startScriptedServer((_request, response) => {
      held.push(() => json(response, 200, { data: [1] }));
    });
    const client = createUpstreamClient({ baseUrl: server.url });
    const calls = Array.from({ length: 5 }, () => client.get("/api/posts/ids", { ids: "a,b" }));
    const other = client.get("/api/posts/ids", { ids: "c" });
    await waitFor(() => held.length === 2, "both distinct requests upstream");
    for (const release of held) release();
    const results = await Promise.all([...calls, other]);
    await client.close();
    expect(results.every((result) => result.outcome === "ok")).toBe(true);
    expect(server.paths).toHaveLength(2);
    expect(client.stats()).toEqual({ requests: 2, coalesced: 4, cacheHits: 0 });
  });

  it("waits out a 429 whose x-ratelimit-reset fits in the deadline, counting the retry", async () => {
    server = await startScriptedServer((_request, response, index) =>
      index === 0
        ? json(response, 429, { error: "Too many requests" }, { "x-ratelimit-reset": "1" })
        : json(response, 200, { data: [] }),
    );
    const client = createUpstreamClient({ baseUrl: server.url, deadlineMs: 4_000 });
    const result = await client.get("/api/posts/search", { subreddit: "pics" });
    await client.close();
    expect(result).toMatchObject({ outcome: "ok", attempts: 2, retries: 1 });
  });

  it("answers rate_limited with the reset as retry-after when it cannot be waited out", async () => {
    server = await startScriptedServer((_request, response) =>
      json(response, 429, { error: "Too many requests" }, { "x-ratelimit-reset": "42" }),
    );
    const client = createUpstreamClient({ baseUrl: server.url, deadlineMs: 2_000 });
    const result = await client.get("/api/posts/search", { subreddit: "pics" });
    await client.close();
    expect(result).toMatchObject({ outcome: "rate_limited", retry_after_seconds: 42, attempts: 1 });
  });

  it("refuses a body larger than the bound without retrying", async () => {
    server = await startScriptedServer((_request, response) =>
      json(response, 200, { data: "x".repeat(5_000) }),
    );
    const client = createUpstreamClient({ baseUrl: server.url, maxBodyBytes: 1_000 });
    const result = await client.get("/api/posts/ids", { ids: "a" });
    await client.close();
    expect(result).toMatchObject({ outcome: "unavailable", attempts: 1 });
    expect(result.outcome !== "ok" && result.message).toMatch(/exceeds 1000 bytes/);
  });

  it("retries a busy answer once with the limit halved and reports the limit that succeeded", async () => {
    server = await startScriptedServer((_request, response, index) =>
      index === 0
        ? json(response, 422, { data: null, error: "Timeout. Maybe slow down a bit" })
        : json(response, 200, { data: [] }),
    );
    const client = createUpstreamClient({ baseUrl: server.url, ...fastRetries });
    const result = await client.get("/api/comments/search", { author: "x", limit: 100, sort: "desc" });
    await client.close();
    expect(result).toMatchObject({ outcome: "ok", retries: 1, query: { limit: 50 } });
    expect(server.paths[1]).toBe("/api/comments/search?author=x&limit=50&sort=desc&meta-app=reddit-data-api");
  });

  it("gives up on an upstream that never answers once the deadline has passed, after retrying", async () => {
    server = await startScriptedServer(() => {});
    const client = createUpstreamClient({ baseUrl: server.url, deadlineMs: 600, ...fastRetries });
    const started = Date.now();
    const result = await client.get("/api/posts/search", { subreddit: "pics" });
    await client.close();
    expect(result).toMatchObject({ outcome: "unavailable" });
    expect(result.retries).toBeGreaterThanOrEqual(1);
    // Without the deadline this would never return; the bound is generous for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("classifies a refused connection as unavailable after the retries", async () => {
    const client = createUpstreamClient({ baseUrl: "http://127.0.0.1:9", maxRetries: 2, ...fastRetries });
    const result = await client.get("/api/posts/search", { subreddit: "pics" });
    await client.close();
    expect(result).toMatchObject({ outcome: "unavailable", attempts: 3, retries: 2 });
  });
});
