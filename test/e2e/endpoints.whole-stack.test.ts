/**
 * Every endpoint through the whole stack: the real adapters over the upstream simulator, billing,
 * and the MCP service. The account endpoint's answer, and how the gateway itself builds an answer (the
 * envelope, the credit headers, what the adapter is sent) are tested with scripted adapters in
 * services/gateway/test/gateway.happy.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let key: string;
let subreddit: string;
let post: { id: string; author: string };

beforeAll(async () => {
  stack = await startStack();
  key = (await stack.createKey({ credits: 1_000 })).key;
  const search = await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=a`, withKey(key));
  subreddit = (search.body.data as { name: string }[])[0]!.name;
  const posts = await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=${subreddit}&limit=5`, withKey(key));
  post = (posts.body.data as { id: string; author: string }[])[0]!;
});
afterAll(async () => stack.stop());

/** Headers equal the body's values; list metadata only on list endpoints (docs/api.md#response-envelope). */
function expectEnvelope(result: Awaited<ReturnType<typeof getJson>>, list: boolean, creditsUsed: number) {
  expect(result.status).toBe(200);
  expect(Object.keys(result.body).sort()).toEqual(["_service", "data"]);
  const service = result.body._service as Record<string, unknown>;
  // docs/api.md#freshness: every data answer says when its data was produced (the account is no data).
  const data = creditsUsed > 0;
  const expectedKeys = [
    ...(data ? ["cached_at"] : []),
    "credits_remaining",
    "credits_used",
    ...(list ? ["cursor", "has_more"] : []),
  ];
  expect(Object.keys(service).sort()).toEqual(expectedKeys);
  if (data) {
    const age = Number(result.headers.get("age"));
    expect(age).toBeGreaterThanOrEqual(0);
    expect(service.cached_at).toBeLessThanOrEqual(Date.now() / 1000);
  } else expect(result.headers.get("age")).toBeNull();
  expect(service.credits_used).toBe(creditsUsed);
  expect(result.headers.get("x-credits-used")).toBe(String(service.credits_used));
  expect(result.headers.get("x-credits-remaining")).toBe(String(service.credits_remaining));
  expect(result.headers.get("x-request-id")).toBeTruthy();
  return service;
}

describe("the seven endpoints through the whole stack", () => {
  it("lists posts with a cursor, has_more and 1 credit", async () => {
    const result = await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=${subreddit}&limit=1`, withKey(key));
    const service = expectEnvelope(result, true, 1);
    const rows = result.body.data as { created_utc: number }[];
    expect(typeof service.cursor).toBe("number");
    expect(service.has_more).toBe(true);
    // One row, unless the newest second holds several: then that whole second (never split).
    expect(rows.length).toBeGreaterThanOrEqual(1);
    if (rows.length > 1) expect(rows.every((row) => row.created_utc === service.cursor)).toBe(true);
  });

  it("fetches posts by id in batch mode with cursor null and has_more false", async () => {
    const result = await getJson(`${stack.gatewayUrl}/v1/posts?ids=${post.id}`, withKey(key, "bearer"));
    const service = expectEnvelope(result, true, 1);
    expect(service).toMatchObject({ cursor: null, has_more: false });
  });

  it("ignores the listing parameters in batch mode, even ones that would not validate (docs/api.md#endpoints)", async () => {
    const url = `${stack.gatewayUrl}/v1/posts?ids=${post.id}&subreddit=x&sort=sideways&q=&after=soon`;
    const result = await getJson(url, withKey(key));
    expectEnvelope(result, true, 1);
    expect((result.body.data as { id: string }[]).map((row) => row.id)).toEqual([post.id]);
  });

  it("lists comments, the comment tree and community search as list endpoints", async () => {
    expectEnvelope(
      await getJson(`${stack.gatewayUrl}/v1/comments?subreddit=${subreddit}`, withKey(key)),
      true,
      1,
    );
    const tree = await getJson(`${stack.gatewayUrl}/v1/comments/tree?post_id=t3_${post.id}`, withKey(key));
    expect(expectEnvelope(tree, true, 1)).toMatchObject({ cursor: null, has_more: false });
    const search = await getJson(
      `${stack.gatewayUrl}/v1/subreddits/search?q=${subreddit.slice(0, 2)}`,
      withKey(key),
    );
    expectEnvelope(search, true, 1);
    expect((search.body.data as unknown[]).length).toBeLessThanOrEqual(10);
  });

  it("answers rules and user profiles with only the credit fields, a missing user as null and charged", async () => {
    const rules = await getJson(`${stack.gatewayUrl}/v1/subreddits/${subreddit}/rules`, withKey(key));
    expectEnvelope(rules, false, 1);
    expect(rules.body.data).toMatchObject({ subreddit: expect.any(String), rules: expect.any(Array) });
    const user = await getJson(`${stack.gatewayUrl}/v1/users/${post.author}`, withKey(key, "bearer"));
    expectEnvelope(user, false, 1);
    const nobody = await getJson(`${stack.gatewayUrl}/v1/users/no_such_user_zz9`, withKey(key));
    expectEnvelope(nobody, false, 1);
    expect(nobody.body.data).toEqual({ user: null });
  });

  it("answers the account for free with a fresh balance that every data call lowers by exactly one", async () => {
    const before = await getJson(`${stack.gatewayUrl}/v1/account`, withKey(key));
    const service = expectEnvelope(before, false, 0);
    const account = before.body.data as {
      credits_balance: number;
      rate_limit: { qps: number; burst: number };
    };
    expect(account.rate_limit).toEqual({ qps: 100, burst: 100 });
    expect(service.credits_remaining).toBe(account.credits_balance);
    const charged = await getJson(`${stack.gatewayUrl}/v1/subreddits/${subreddit}/rules`, withKey(key));
    expect(charged.headers.get("x-credits-remaining")).toBe(String(account.credits_balance - 1));
    const after = await getJson(`${stack.gatewayUrl}/v1/account`, withKey(key, "bearer"));
    expect((after.body.data as { credits_balance: number }).credits_balance).toBe(
      account.credits_balance - 1,
    );
  });

  it("proxies /mcp to the MCP service for a valid key, which lists the seven tools", async () => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      headers: {
        ...withKey(key),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const tool of ["search_posts", "get_comment_tree", "check_credits"]) expect(text).toContain(tool);
  });
});
