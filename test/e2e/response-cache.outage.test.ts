/**
 * A response cache whose Redis is down, through the whole stack: every request is fetched from the
 * upstream (no answer served again, none lost), says its age, costs 1 credit, and a failure is still
 * refunded. Two adapter replicas, as in production.
 */
import { connectRedis, type Redis } from "@rda/service-kit";
import { freePort, silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let downCache: Redis;
beforeAll(async () => {
  // Nothing listens there: every cache command fails at once, as with a cache Redis that went away.
  downCache = connectRedis(`redis://127.0.0.1:${await freePort()}`, "cache-down", silentLogger());
  stack = await startStack({ responseCache: { redis: downCache }, adapterReplicas: 2 });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  downCache?.disconnect();
});

async function simTotal(): Promise<number> {
  return ((await (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json()) as { total: number }).total;
}

describe("the stack while the response cache's Redis is down", () => {
  it("fetches every request uncached, with its age and 1 credit each, and still refunds failures", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.probe.subredditNames()[0];
    const path = `${stack.gatewayUrl}/v1/posts?subreddit=${subreddit}&limit=6`;
    const before = await simTotal();
    const answers = [];
    for (let round = 0; round < 3; round++) answers.push(await getJson(path, withKey(key)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get("age"))).toEqual(["0", "0", "0"]);
    expect(await simTotal()).toBe(before + 3);
    const remaining = answers.map(
      (answer) => (answer.body._service as { credits_remaining: number }).credits_remaining,
    );
    expect(remaining).toEqual([9, 8, 7]);

    await stack.fault({ mode: "error", rate: 1, path: "/api/posts/search" });
    const failed = await getJson(path, withKey(key));
    await stack.clearFaults();
    expect(failed.status).toBe(502);
    const after = await getJson(path, withKey(key));
    expect((after.body._service as { credits_remaining: number }).credits_remaining).toBe(6);
  });
});
