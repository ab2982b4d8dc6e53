/**
 * Rate limits as a customer meets them (docs/api.md#limits): the key's own bucket, decided by the
 * real billing service in its admission script, through a real gateway, before any adapter work.
 * This is their one home; the upstream's own 429 (global) is the adapters' (gateway.error.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness, type TestKey } from "./support/harness.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());

describe("gateway rate limits", () => {
  it("allows a key's burst, then answers 429 with an integer Retry-After and no scope, uncharged", async () => {
    const key = await h.createKey({ balance: 100, qps: 1, burst: 2 });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(last?.headers.get("x-ratelimit-scope")).toBeNull();
    expect(await h.balanceOf(key)).toBe(100);
  });

  it("earns a token back after the advertised Retry-After, then admits at the key's rate", async () => {
    const key = await h.createKey({ balance: 100, qps: 2, burst: 10 });
    const account = () => fetch(`${h.url}/v1/account`, { headers: authHeaders(key) });
    const burst = await Promise.all(Array.from({ length: 10 }, account));
    expect(burst.map((response) => response.status)).toEqual(Array(10).fill(200));
    let refused: Response | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const response = await account();
      if (response.status === 429) refused = response;
    }
    expect(refused?.status).toBe(429);
    await sleep(Number(refused?.headers.get("retry-after")) * 1000);
    expect((await account()).status).toBe(200);
    // Over a measured window the admitted count follows the refill rate: at most 2 × elapsed + 1, and
    // at least that minus one, unless our own attempts were fewer (a slow machine tries less often).
    const windowStart = Date.now();
    let attempts = 0;
    let admitted = 0;
    while (Date.now() - windowStart < 2_000) {
      attempts += 1;
      if ((await account()).status === 200) admitted += 1;
      await sleep(20);
    }
    const elapsedSeconds = (Date.now() - windowStart) / 1000;
    expect(admitted).toBeLessThanOrEqual(Math.ceil(2 * elapsedSeconds) + 1);
    expect(admitted).toBeGreaterThanOrEqual(Math.min(attempts, Math.floor(2 * elapsedSeconds) - 1));
    expect(await h.balanceOf(key)).toBe(100);
  });

  it("refuses a key without credits (402) or tokens (429) before any adapter work: no adapter message, nothing charged", async () => {
    const broke = await h.createKey({ balance: 0, qps: 100, burst: 100 });
    const slow = await h.createKey({ balance: 100, qps: 1, burst: 1 });
    const ask = (key: TestKey) => fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    const before = h.adapterParams.length;
    const unpaid = await Promise.all(Array.from({ length: 20 }, () => ask(broke)));
    expect(unpaid.map((response) => response.status)).toEqual(Array(20).fill(402));
    const limited = await Promise.all(Array.from({ length: 20 }, () => ask(slow)));
    const admitted = limited.filter((response) => response.status === 200).length;
    // One token, and one more a second: on a slow machine a second request may be admitted.
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(limited.filter((response) => response.status === 429)).toHaveLength(20 - admitted);
    // Every message the adapters' subjects received is counted by their responders: one for each
    // admitted request, none for a refused one.
    await h.nats.flush();
    expect(h.adapterParams.length - before).toBe(admitted);
    expect(await h.balanceOf(broke)).toBe(0);
    expect(await h.balanceOf(slow)).toBe(100 - admitted);
  });
});
