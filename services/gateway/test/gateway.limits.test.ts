/**
 * Rate limits as a customer meets them (docs/api.md#limits): the key's own bucket and the shared
 * upstream reserve, both decided by the real billing service in its admission script, through a
 * real gateway. This is their one home.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, NOT_CACHED, OK_PAGE, startHarness } from "./support/harness.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: Harness;
beforeAll(async () => {
  // A reserve of burst 3 refilling at 1/s: the 4th immediate data request finds it empty.
  h = await startHarness({ reserve: { qps: 1, burst: 3 } });
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

  it("answers 429 with x-ratelimit-scope global when the shared reserve is empty, and the account is unaffected", async () => {
    const key = await h.createKey({ balance: 100, qps: 100, burst: 100 });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.headers.get("x-ratelimit-scope")).toBe("global");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await h.balanceOf(key)).toBe(97);
    expect((await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) })).status).toBe(200);
  });
});

describe("an answer the shared cache holds", () => {
  let r: Harness;
  beforeAll(async () => {
    // A reserve of one place that does not come back within the test.
    r = await startHarness({ reserve: { qps: 0.001, burst: 1 } });
  });
  afterAll(async () => r.stop());

  it("is admitted without the upstream reserve, charged 1 and one token; an uncached one takes the reserve, then meets 429 global", async () => {
    const key = await r.createKey({ balance: 10, qps: 1, burst: 4 });
    const ask = () => fetch(`${r.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });

    r.setCacheOnly(OK_PAGE);
    const cached = await ask();
    expect(cached.status).toBe(200);
    expect(((await cached.json()) as { data: unknown }).data).toEqual([{ id: "abc", title: "t" }]);
    expect(r.adapterParams).toHaveLength(0);

    r.setCacheOnly(NOT_CACHED);
    // The reserve's one place is still there: the cached answer did not take it.
    const uncached = await ask();
    expect(uncached.status).toBe(200);
    expect(r.adapterParams).toHaveLength(1);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-scope")).toBe("global");
    expect(r.adapterParams).toHaveLength(1);

    r.setCacheOnly(OK_PAGE);
    const cachedAgain = await ask();
    expect(cachedAgain.status).toBe(200);
    expect(cachedAgain.headers.get("x-ratelimit-scope")).toBeNull();
    // One token of the key's bucket each, cached or not.
    expect(cachedAgain.headers.get("ratelimit")).toMatch(/;r=0;/);
    expect(r.cacheOnlyParams).toHaveLength(4);

    expect(await r.balanceOf(key)).toBe(7);
    const journal = await r.journal(key);
    expect(journal.filter((entry) => entry.type === "debit")).toHaveLength(3);
    expect(journal.filter((entry) => entry.type === "refund")).toEqual([]);
  });
});
