/**
 * The client with the shared pacer (real Redis) against a scripted upstream: the rate-limit headers
 * of every answer, in the forms the upstream sends, close the window for every later call, which is
 * then refused with an honest Retry-After without being sent.
 */
import { type Redis, redisKeys } from "@rda/service-kit";
import { connectTestRedis, deleteNamespaceKeys, testNamespace } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisPacer, createUpstreamClient, type UpstreamObserver } from "../src/index.ts";
import { json, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

let redis: Redis;
let server: ScriptedServer | undefined;
const namespaces: string[] = [];
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  for (const namespace of namespaces) await deleteNamespaceKeys(redis, namespace);
  await redis.quit();
});

function pacedClient(baseUrl: string, turns: string[]) {
  const namespace = testNamespace("paced");
  namespaces.push(namespace);
  const pacer = createRedisPacer(redis, redisKeys(namespace).upstreamPacer, {
    requestsPerSecond: 100,
    concurrency: 2,
  });
  const observer: UpstreamObserver = {
    attempt() {},
    call() {},
    coalesced() {},
    turn: ({ outcome }) => turns.push(outcome),
  };
  return createUpstreamClient({ baseUrl, pacer, observer, deadlineMs: 2_000 });
}

describe("the client inside the shared budget", () => {
  it("stops sending once a 200 says no request remains, and says when the window turns", async () => {
    server = await startScriptedServer((_request, response) =>
      json(response, 200, { data: [] }, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "30" }),
    );
    const turns: string[] = [];
    const client = pacedClient(server.url, turns);
    expect(await client.get("/api/posts/search", { subreddit: "a" })).toMatchObject({ outcome: "ok" });
    const refused = await client.get("/api/posts/search", { subreddit: "b" });
    await client.close();
    expect(refused).toMatchObject({ outcome: "rate_limited", attempts: 0 });
    expect(refused.outcome === "rate_limited" && refused.retry_after_seconds).toBeGreaterThanOrEqual(29);
    expect(refused.outcome === "rate_limited" && refused.retry_after_seconds).toBeLessThanOrEqual(30);
    expect(server.paths).toHaveLength(1);
    expect(turns).toEqual(["granted", "window_spent"]);
  });

  it("keeps a 429's reset given as epoch milliseconds, instead of assuming a minute", async () => {
    const resetAt = Date.now() + 40_000;
    server = await startScriptedServer((_request, response) =>
      json(response, 429, { error: "Rate limit exceeded" }, { "x-ratelimit-reset-at": String(resetAt) }),
    );
    const client = pacedClient(server.url, []);
    const first = await client.get("/api/posts/search", { subreddit: "a" });
    const second = await client.get("/api/posts/search", { subreddit: "b" });
    await client.close();
    for (const result of [first, second]) {
      expect(result.outcome).toBe("rate_limited");
      const retryAfter = result.outcome === "rate_limited" ? result.retry_after_seconds : 0;
      expect(retryAfter).toBeGreaterThanOrEqual(38);
      expect(retryAfter).toBeLessThanOrEqual(40);
    }
    expect(server.paths).toHaveLength(1);
  });

  it("gives every call of one request one deadline: a call after the request's time ran out is our budget spent, unsent", async () => {
    server = await startScriptedServer((_request, response) => json(response, 200, { data: [] }));
    const turns: string[] = [];
    const client = pacedClient(server.url, turns);
    // The request began 1.5 s ago (its first call waited that long for a turn): with a 2 s deadline,
    // less than one attempt's floor is left for its next call.
    const startedAtMs = Date.now() - 1_500;
    const late = await client.get("/api/posts/search", { subreddit: "a" }, { startedAtMs });
    // A call of a request that just began has the whole deadline.
    const fresh = await client.get("/api/posts/search", { subreddit: "b" }, { startedAtMs: Date.now() });
    await client.close();
    expect(late).toMatchObject({ outcome: "budget_spent", attempts: 0 });
    expect(fresh).toMatchObject({ outcome: "ok" });
    expect(server.paths).toHaveLength(1);
    expect(turns).toEqual(["granted"]);
  });
});
