/**
 * Floods of bad keys do not reach billing: the same unknown key is looked up once, however often it
 * is sent; an address sending many different bad keys is throttled (429, Retry-After) without lookups,
 * while keys known valid keep working from that same address, and other addresses are untouched.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  // X-Forwarded-For names the client here, so one test can speak from several addresses; a token
  // refills every 20 s, so no refill lands within a test.
  h = await startHarness({ gateway: { failedAuth: { burst: 5, qps: 0.05 }, trustProxy: true } });
});
afterAll(async () => h.stop());

const unknownKey = () => `rdk_${randomBytes(32).toString("base64url").slice(0, 43)}`;

async function billingLookups(): Promise<number> {
  const metrics = await h.metrics();
  const line = metrics
    .split("\n")
    .find((l) => l.startsWith('gateway_key_cache_lookups_total{result="miss"}'));
  return Number(line?.split(" ")[1] ?? 0);
}

async function accountFrom(address: string, key: string): Promise<Response> {
  return fetch(`${h.url}/v1/account`, { headers: { ...authHeaders(key), "x-forwarded-for": address } });
}

describe("bad keys at the gateway", () => {
  it("asks billing about the same unknown key once, however often it is sent", async () => {
    const key = unknownKey();
    const before = await billingLookups();
    for (let i = 0; i < 4; i++) expect((await accountFrom("203.0.113.1", key)).status).toBe(401);
    expect(await billingLookups()).toBe(before + 1);
  });

  it("throttles an address sending many different bad keys, without asking billing, and counts it", async () => {
    const address = "203.0.113.2";
    const good = await h.createKey();
    expect((await accountFrom(address, good.key)).status).toBe(200);
    const before = await billingLookups();

    const statuses: number[] = [];
    let throttled: Response | undefined;
    for (let i = 0; i < 12; i++) {
      const response = await accountFrom(address, i % 3 === 0 ? "not-a-key" : unknownKey());
      statuses.push(response.status);
      if (response.status === 429) throttled = response;
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    expect(throttled?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await throttled?.json()).toEqual({
      error: expect.stringMatching(/too many requests/),
      code: "auth_failures_throttled",
    });
    // Of the five refused, two were malformed (no lookup); the seven throttled were not looked up.
    expect(await billingLookups()).toBe(before + 3);
    expect(await h.metrics()).toMatch(/gateway_rate_limited_total\{scope="address"\} [1-9]/);

    // A key known valid is served from the throttled address; another address is not throttled.
    expect((await accountFrom(address, good.key)).status).toBe(200);
    expect((await accountFrom("203.0.113.3", unknownKey())).status).toBe(401);
  });

  it("counts IPv6 addresses of one /64 together", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push((await accountFrom(`2001:db8:1:2::${(i + 1).toString(16)}`, unknownKey())).status);
    expect(statuses.slice(5)).toEqual([429, 429]);
    expect((await accountFrom("2001:db8:1:3::1", unknownKey())).status).toBe(401);
  });
});
