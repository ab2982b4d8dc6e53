import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness } from "./support/harness.ts";

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
