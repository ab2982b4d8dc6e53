import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());

describe("gateway data endpoints", () => {
  it("wraps the adapter's data bytes in {data, _service} with list metadata and equal credit headers", async () => {
    const key = await h.createKey({ balance: 5 });
    const response = await fetch(`${h.url}/v1/posts?subreddit=rust&limit=5`, { headers: authHeaders(key) });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(
      '{"data":[{"id":"abc","title":"t"}],"_service":{"cursor":1700000000,"has_more":true,"credits_used":1,"credits_remaining":4}}',
    );
    expect(response.headers.get("x-credits-used")).toBe("1");
    expect(response.headers.get("x-credits-remaining")).toBe("4");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("sends the adapter the normalised parameters, not the raw query", async () => {
    const key = await h.createKey();
    await fetch(`${h.url}/v1/comments/tree?post_id=t3_ABC12`, { headers: authHeaders(key) });
    expect(h.adapterParams.at(-1)).toEqual({ post_id: "abc12", limit: 50 });
  });

  it("carries only the credit fields in _service on rules and users", async () => {
    const key = await h.createKey({ balance: 3 });
    h.setAdapter(() => ({ meta: { outcome: "ok" }, data: '{"user":null}' }));
    const response = await fetch(`${h.url}/v1/users/some_user`, { headers: authHeaders(key) });
    expect(await response.json()).toEqual({
      data: { user: null },
      _service: { credits_used: 1, credits_remaining: 2 },
    });
    h.setAdapter(() => ({ meta: { outcome: "ok" }, data: '{"subreddit":"rust","rules":[]}' }));
    const rules = await fetch(`${h.url}/v1/subreddits/rust/rules`, { headers: authHeaders(key) });
    expect(((await rules.json()) as { _service: unknown })._service).toEqual({
      credits_used: 1,
      credits_remaining: 1,
    });
  });

  it("accepts Authorization: Bearer exactly like x-api-key", async () => {
    const key = await h.createKey({ balance: 10 });
    h.setAdapter(() => ({ meta: { outcome: "ok", cursor: null, has_more: false }, data: "[]" }));
    const response = await fetch(`${h.url}/v1/subreddits/search?q=ru`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-credits-remaining")).toBe("9");
  });
});

describe("gateway account endpoint", () => {
  it("answers the fresh balance and rate limit for free, ignoring a query string", async () => {
    const key = await h.createKey({ balance: 42, qps: 3, burst: 7 });
    const response = await fetch(`${h.url}/v1/account?x=1`, { headers: authHeaders(key) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: {
        credits_balance: 42,
        rate_limit: { qps: 3, burst: 7 },
        low_balance_threshold: 100,
        spend: {
          month: expect.stringMatching(/^\d{4}-\d{2}$/),
          credits_spent: 0,
          monthly_cap: null,
          resets_at: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
        },
      },
      _service: { credits_used: 0, credits_remaining: 42 },
    });
    expect(response.headers.get("x-credits-used")).toBe("0");
    await fetch(`${h.url}/v1/users/someone`, { headers: authHeaders(key) });
    const again = await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) });
    expect(again.headers.get("x-credits-remaining")).toBe("41");
  });
});

describe("gateway operational endpoints", () => {
  it("answers /livez, /readyz and /openapi.json without a key, and 404 for /metrics on the public port", async () => {
    expect((await fetch(`${h.url}/livez`)).status).toBe(200);
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as {
      info: { version: string };
      paths: Record<string, unknown>;
    };
    expect(doc.info.version).toBe("1.0.0");
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
    expect((await fetch(`${h.url}/metrics`)).status).toBe(404);
  });

  it("counts requests, debits, key cache hits and misses, and requests in flight in its metrics", async () => {
    const key = await h.createKey();
    for (let i = 0; i < 2; i++)
      await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    const metrics = await waitFor(async () => {
      const text = await h.metrics();
      return text.includes('route="/v1/posts"') ? text : undefined;
    }, "request metrics");
    expect(metrics).toMatch(/^gateway_credits_debited_total [1-9]/m);
    expect(metrics).toMatch(/^gateway_key_cache_lookups_total\{result="miss"\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_key_cache_lookups_total\{result="hit"\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_http_requests_in_flight 0$/m);
    expect(metrics).toContain(
      'gateway_nats_request_duration_seconds_bucket{le="0.001",subject="billing.admit"',
    );
  });

  it("echoes a well-formed x-request-id and replaces a malformed one with a generated id", async () => {
    const echoed = await fetch(`${h.url}/livez`, { headers: { "x-request-id": "trace-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${h.url}/livez`, { headers: { "x-request-id": "bad id with spaces" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
