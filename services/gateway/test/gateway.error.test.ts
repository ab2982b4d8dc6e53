import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, OK_PAGE, startHarness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  h.setAdapter(OK_PAGE);
  await h.setBilling(true);
});
afterAll(async () => h.stop());

async function expectError(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("x-request-id")).toBeTruthy();
  const body = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(body).filter((key) => key !== "param")).toEqual(["error", "code"]);
  expect(typeof body.error).toBe("string");
  return body.error as string;
}

describe("gateway refusals before the debit", () => {
  it("returns 400 naming the parameter and debits nothing when parameters are invalid", async () => {
    const key = await h.createKey({ balance: 5 });
    const message = await expectError(
      await fetch(`${h.url}/v1/posts?limit=5`, { headers: authHeaders(key) }),
      400,
    );
    expect(message).toContain("subreddit");
    await expectError(await fetch(`${h.url}/v1/users/a`, { headers: authHeaders(key) }), 400);
    await expectError(
      await fetch(`${h.url}/v1/posts?subreddit=x&limit=1000`, { headers: authHeaders(key) }),
      400,
    );
    expect(await h.balanceOf(key)).toBe(5);
  });

  it("refuses __proto__, constructor and prototype as parameters on every data route, with 400 and no charge", async () => {
    const key = await h.createKey({ balance: 5 });
    const routes = [
      "/v1/posts?subreddit=rust&",
      "/v1/comments?subreddit=rust&",
      "/v1/comments/tree?post_id=abc&",
      "/v1/subreddits/search?q=rust&",
      "/v1/subreddits/rust/rules?",
      "/v1/users/spez?",
    ];
    for (const route of routes) {
      for (const name of ["__proto__", "constructor", "prototype", "__proto__[x]"]) {
        const url = `${h.url}${route}${encodeURIComponent(name)}=1`;
        const message = await expectError(await fetch(url, { headers: authHeaders(key) }), 400);
        expect(message).toContain("unknown parameter");
      }
    }
    expect(await h.balanceOf(key)).toBe(5);
  });

  it("returns 401 for a missing, malformed, unknown or revoked key, on data, account and /mcp", async () => {
    expect(await expectError(await fetch(`${h.url}/v1/posts?subreddit=rust`), 401)).toContain("x-api-key");
    const mcp = { method: "POST", body: "{}", headers: { "content-type": "application/json" } };
    await expectError(await fetch(`${h.url}/mcp`, mcp), 401);
    await expectError(await fetch(`${h.url}/v1/account`, { headers: { "x-api-key": "nope" } }), 401);
    await expectError(
      await fetch(`${h.url}/v1/account`, { headers: authHeaders(`rdk_${"a".repeat(43)}`) }),
      401,
    );
    const key = await h.createKey();
    await h.revoke(key);
    await expectError(await fetch(`${h.url}/v1/account`, { headers: authHeaders(key) }), 401);
  });

  it("returns 402 with the top-up link and debits nothing when the balance is 0", async () => {
    const key = await h.createKey({ balance: 0 });
    const message = await expectError(
      await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) }),
      402,
    );
    expect(message).toContain("https://example.com/topup");
    expect(await h.balanceOf(key)).toBe(0);
  });

  it("returns 404 for unknown paths and 405 with allow: GET for other methods", async () => {
    await expectError(await fetch(`${h.url}/v2/nothing`), 404);
    const response = await fetch(`${h.url}/v1/posts`, { method: "POST", body: "{}" });
    await expectError(response, 405);
    expect(response.headers.get("allow")).toBe("GET");
    await expectError(await fetch(`${h.url}/v1/account`, { method: "DELETE" }), 405);
  });

  it("returns 400 for a GET with a body, before authentication", async () => {
    const key = await h.createKey({ balance: 3 });
    // fetch refuses to send a GET body, so this one goes over node:http.
    const { status, body } = await rawRequest(
      `${h.url}/v1/posts?subreddit=rust`,
      "GET",
      authHeaders(key),
      "hello",
    );
    expect(status).toBe(400);
    expect(JSON.parse(body)).toEqual({ error: expect.any(String), code: "invalid_parameter" });
    expect(await h.balanceOf(key)).toBe(3);
  });

  it("returns 503 with Retry-After and debits nothing when billing does not answer", async () => {
    const key = await h.createKey({ balance: 3 });
    await h.setBilling(false);
    const response = await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    await expectError(response, 503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await h.setBilling(true);
    expect(await h.balanceOf(key)).toBe(3);
  });
});

describe("gateway failures after the debit", () => {
  const cases = [
    [
      "an adapter unavailable outcome",
      () => ({ meta: { outcome: "unavailable", message: "boom" } }),
      502,
      "upstream_unavailable",
    ],
    ["an adapter timeout", () => "silent", 502, "upstream_unavailable"],
    ["a malformed frame", () => ({ meta: { outcome: "ok" } }), 502, "upstream_unavailable"],
    [
      "an upstream parameter rejection",
      () => ({ meta: { outcome: "bad_request", message: "bad id" } }),
      400,
      "upstream_rejected",
    ],
    [
      "a window too large for the one page a request reads",
      () => ({ meta: { outcome: "too_large", message: "narrow the window" } }),
      400,
      "window_too_large",
    ],
  ] as const;

  for (const [what, behaviour, status] of cases) {
    it(`answers ${status} after ${what}, with the credit refunded before the answer and said so`, async () => {
      const key = await h.createKey({ balance: 5 });
      h.setAdapter(behaviour as never);
      const response = await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
      expect(await expectError(response, status)).toMatch(/; the credit was refunded$/);
      expect(response.headers.get("x-credits-used")).toBe("1");
      expect(response.headers.get("x-credits-refunded")).toBe("1");
      expect(response.headers.get("x-credits-remaining")).toBe("5");
      // Refunded before the answer: the very next read shows the whole balance, journaled once.
      expect(await h.balanceOf(key)).toBe(5);
      const journal = await h.journal(key);
      const debit = journal.find((entry) => entry.type === "debit");
      expect(journal.filter((entry) => entry.type === "refund")).toEqual([
        { type: "refund", delta: 1, request_id: debit?.request_id },
      ]);
    });
  }

  it("answers 429 with scope global and Retry-After from the adapter after an upstream rate limit, refunded", async () => {
    const key = await h.createKey({ balance: 5 });
    h.setAdapter(() => ({
      meta: { outcome: "rate_limited", message: "slow down", retry_after_seconds: 30 },
    }));
    const response = await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    await expectError(response, 429);
    expect(response.headers.get("x-ratelimit-scope")).toBe("global");
    expect(response.headers.get("retry-after")).toBe("30");
    expect(await h.balanceOf(key)).toBe(5);
  });

  it("answers 429 global with its own message when our budget had no turn, refunded, without blaming the data source", async () => {
    const key = await h.createKey({ balance: 5 });
    h.setAdapter(() => ({
      meta: { outcome: "rate_limited", message: "slow down", retry_after_seconds: 30 },
    }));
    const upstream = await expectError(
      await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) }),
      429,
    );
    h.setAdapter(() => ({
      meta: { outcome: "budget_spent", message: "our upstream budget is spent", retry_after_seconds: 3 },
    }));
    const response = await fetch(`${h.url}/v1/posts?subreddit=rust`, { headers: authHeaders(key) });
    const ours = await expectError(response, 429);
    expect(response.headers.get("x-ratelimit-scope")).toBe("global");
    expect(response.headers.get("retry-after")).toBe("3");
    expect(ours).toMatch(/our shared budget/);
    expect(ours).not.toMatch(/data source is rate limiting/);
    expect(upstream).toMatch(/data source is rate limiting us/);
    expect(await h.balanceOf(key)).toBe(5);
  });
});

function rawRequest(url: string, method: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        headers: { ...headers, "content-type": "text/plain", "content-length": String(body.length) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
