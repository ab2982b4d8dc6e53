import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends sequential requests until one answers 429 (at most `max`); the refill is bounded by time. */
async function untilRefused(url: string, headers: Record<string, string>, max: number) {
  const admitted: number[] = [];
  for (let i = 0; i < max; i++) {
    const result = await getJson(url, headers);
    if (result.status !== 200) return { admitted: admitted.length, refused: result };
    admitted.push(result.status);
  }
  throw new Error(`no 429 after ${max} requests`);
}

describe("per-key rate limit (docs/api.md#limits: 2/s sustained, burst 10)", () => {
  it("allows a burst of 10, refuses the next with 429 and an integer Retry-After, then sustains 2 per second", async () => {
    const created = await stack.createKey({ credits: 100, qps: 2, burst: 10 });
    const headers = withKey(created.key);
    const started = Date.now();
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => getJson(`${stack.gatewayUrl}/v1/account`, headers)),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    // Tokens refill at 2/s while we send, so how many more get in is bounded by the time it took.
    const { admitted, refused } = await untilRefused(`${stack.gatewayUrl}/v1/account`, headers, 200);
    const burstSeconds = (Date.now() - started) / 1000;
    expect(admitted).toBeLessThanOrEqual(Math.ceil(2 * burstSeconds));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get("x-ratelimit-scope")).toBeNull();
    // Waiting the advertised Retry-After always earns a token back.
    await sleep(Number(refused.headers.get("retry-after")) * 1000);
    expect((await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=ab`, headers)).status).toBe(200);
    // Over a measured window the admitted count follows the refill rate: at most 2 × elapsed + 1, and
    // at least that minus one, unless our own attempts were fewer (a slow machine tries less often).
    const windowStart = Date.now();
    let attempts = 0;
    let inWindow = 0;
    while (Date.now() - windowStart < 2_000) {
      attempts += 1;
      if ((await getJson(`${stack.gatewayUrl}/v1/account`, headers)).status === 200) inWindow += 1;
      await sleep(20);
    }
    const elapsedSeconds = (Date.now() - windowStart) / 1000;
    expect(inWindow).toBeLessThanOrEqual(Math.ceil(2 * elapsedSeconds) + 1);
    expect(inWindow).toBeGreaterThanOrEqual(Math.min(attempts, Math.floor(2 * elapsedSeconds) - 1));
  });
});

describe("global upstream reserve", () => {
  let small: Stack;
  beforeAll(async () => {
    small = await startStack({ reserve: { qps: 1, burst: 3 } });
  });
  afterAll(async () => small.stop());

  it("answers 429 with x-ratelimit-scope global once the shared reserve is empty, charges nothing, and spares the account", async () => {
    const gateway = { url: small.gatewayUrl };
    const created = await small.createKey({ credits: 50, qps: 100, burst: 100 });
    const headers = withKey(created.key);
    const started = Date.now();
    const { admitted, refused } = await untilRefused(`${gateway.url}/v1/users/someone`, headers, 100);
    const seconds = (Date.now() - started) / 1000;
    // The reserve's burst of 3, plus at most one token per second that passed while we sent.
    expect(admitted).toBeGreaterThanOrEqual(3);
    expect(admitted).toBeLessThanOrEqual(3 + Math.ceil(seconds));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-scope")).toBe("global");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const account = await getJson(`${gateway.url}/v1/account`, headers);
    expect(account.status).toBe(200);
    // Only the admitted calls were charged: the 429 cost nothing.
    expect((account.body.data as { credits_balance: number }).credits_balance).toBe(50 - admitted);
  });
});
