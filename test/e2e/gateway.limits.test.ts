import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("per-key rate limit (spec §8: 2/s sustained, burst 10)", () => {
  it("allows a burst of 10, refuses the 11th with 429 and an integer Retry-After, then sustains 2 per second", async () => {
    const created = await stack.createKey({ credits: 100, qps: 2, burst: 10 });
    const headers = withKey(created.key);
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => getJson(`${stack.gatewayUrl}/v1/account`, headers)),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    const refused = await getJson(`${stack.gatewayUrl}/v1/account`, headers);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get("x-ratelimit-scope")).toBeNull();
    // At 2/s one token takes 500 ms: after waiting that, exactly one more request is admitted.
    await sleep(500);
    expect((await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=ab`, headers)).status).toBe(200);
    // Over a measured window the admitted count follows the refill rate: at most 2 × elapsed + 1.
    const started = Date.now();
    let admitted = 0;
    while (Date.now() - started < 2_000) {
      if ((await getJson(`${stack.gatewayUrl}/v1/account`, headers)).status === 200) admitted += 1;
      await sleep(20);
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(admitted).toBeLessThanOrEqual(Math.ceil(2 * elapsedSeconds) + 1);
    expect(admitted).toBeGreaterThanOrEqual(Math.floor(2 * elapsedSeconds) - 1);
  });
});

describe("global upstream reserve", () => {
  it("answers 429 with x-ratelimit-scope global once the shared reserve is empty, charges nothing, and spares the account", async () => {
    const gateway = await stack.startGateway({ reserve: { qps: 1, burst: 3 } });
    const created = await stack.createKey({ credits: 50, qps: 100, burst: 100 });
    const headers = withKey(created.key);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof getJson>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await getJson(`${gateway.url}/v1/users/someone`, headers);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.headers.get("x-ratelimit-scope")).toBe("global");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const account = await getJson(`${gateway.url}/v1/account`, headers);
    expect(account.status).toBe(200);
    expect((account.body.data as { credits_balance: number }).credits_balance).toBe(47);
  });
});
