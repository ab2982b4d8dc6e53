/**
 * Rate limits as a customer meets them (docs/api.md#limits): the key's own bucket, decided by the
 * real billing service in its admission script, through a real gateway. This is its one home.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, NOT_CACHED, OK_PAGE, startHarness } from "./support/harness.ts";

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
});

describe("an answer the shared cache holds", () => {
  let r: Harness;
  beforeAll(async () => {
    r = await startHarness();
  });
  afterAll(async () => r.stop());

  it("is served without the adapter's upstream work, charged 1 and one token like an uncached one", async () => {
    const key = await r.createKey({ balance: 10, qps: 1, burst: 4 });
    const ask = () => fetch(`${r.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });

    r.setCacheOnly(OK_PAGE);
    const cached = await ask();
    expect(cached.status).toBe(200);
    expect(((await cached.json()) as { data: unknown }).data).toEqual([{ id: "abc", title: "t" }]);
    expect(r.adapterParams).toHaveLength(0);

    r.setCacheOnly(NOT_CACHED);
    const uncached = await ask();
    expect(uncached.status).toBe(200);
    expect(r.adapterParams).toHaveLength(1);

    r.setCacheOnly(OK_PAGE);
    const cachedAgain = await ask();
    expect(cachedAgain.status).toBe(200);
    expect(cachedAgain.headers.get("x-ratelimit-scope")).toBeNull();
    // One token of the key's bucket each, cached or not.
    expect(cachedAgain.headers.get("ratelimit")).toMatch(/;r=1;/);
    expect(r.cacheOnlyParams).toHaveLength(3);

    expect(await r.balanceOf(key)).toBe(7);
    const journal = await r.journal(key);
    expect(journal.filter((entry) => entry.type === "debit")).toHaveLength(3);
    expect(journal.filter((entry) => entry.type === "refund")).toEqual([]);
  });
});
