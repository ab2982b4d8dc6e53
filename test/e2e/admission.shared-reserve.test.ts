/**
 * Refused requests spend nothing shared (docs/api.md#limits): keys with no credit hammering the
 * gateway at their full burst leave the shared upstream reserve to the keys that pay: admission
 * comes first, and data requests take no place in the reserve (the adapters' pacer alone keeps the
 * upstream's budget, docs/upstream.md#cached-answers-and-the-budget).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ reserve: { qps: 20, burst: 40 }, upstreamDeadlineMs: 600 });
});
afterAll(async () => stack.stop());

const reserveBucket = () => stack.redis.hmget(stack.keys.globalReserveBucket, "tokens", "at");

describe("the shared upstream reserve", () => {
  it("is left whole by 30 zero-credit keys at their full burst, so a paying key's burst gets no global 429", async () => {
    const broke = await Promise.all(
      Array.from({ length: 30 }, () => stack.createKey({ credits: 0, qps: 2, burst: 10 })),
    );
    const before = await reserveBucket();
    const refused = await Promise.all(
      broke.flatMap((key) =>
        Array.from({ length: 12 }, () => getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(key.key))),
      ),
    );
    const statuses = new Set(refused.map((answer) => answer.status));
    // 402 within each key's own limit, 429 (the key's, not the reserve's) beyond it.
    expect([...statuses].sort()).toEqual([402, 429]);
    expect(refused.some((answer) => answer.headers.get("x-ratelimit-scope") === "global")).toBe(false);
    expect(await reserveBucket()).toEqual(before);
    const paying = await stack.createKey({ credits: 100, qps: 10, burst: 10 });
    const served = await Promise.all(
      Array.from({ length: 10 }, () => getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(paying.key))),
    );
    expect(served.map((answer) => answer.status)).toEqual(Array(10).fill(200));
  });

  it("is not spent by requests refused before the upstream: 400, 401, 402 and the key's own 429", async () => {
    const key = await stack.createKey({ credits: 0, qps: 1, burst: 1 });
    const before = await reserveBucket();
    expect((await getJson(`${stack.gatewayUrl}/v1/posts?limit=0`, withKey(key.key))).status).toBe(400);
    expect(
      (await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=rust`, withKey(`rdk_${"z".repeat(43)}`))).status,
    ).toBe(401);
    expect((await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=rust`, withKey(key.key))).status).toBe(402);
    expect((await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=rust`, withKey(key.key))).status).toBe(429);
    expect(await reserveBucket()).toEqual(before);
  });
});
