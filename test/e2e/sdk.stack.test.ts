/** The client against the running gateway (the whole stack in-process): every method, real errors. */

import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let api: GatewayClient;

beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.createKey({ credits: 100 });
  api = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: key });
});
afterAll(async () => {
  await api?.close();
  await stack?.stop();
});

function succeeded<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
  return result.value;
}

describe("the gateway client against the running gateway", () => {
  it("calls every endpoint and gets each one's envelope, 1 credit per data call and 0 for the account", async () => {
    const start = succeeded(await api.getAccount());
    expect(start._service).toEqual({ credits_used: 0, credits_remaining: 100 });
    const community = succeeded(await api.searchSubreddits({ q: "a" })).data[0]!;
    const posts = succeeded(await api.listPosts({ subreddit: community.name, limit: 2 }));
    expect(posts.data.length).toBeGreaterThan(0);
    expect(posts._service.cursor).toBe(posts.data.at(-1)!.created_utc);
    const post = posts.data[0]!;
    succeeded(await api.listComments({ subreddit: community.name, limit: 2 }));
    expect(succeeded(await api.getCommentTree({ post_id: `t3_${post.id}` }))._service).toMatchObject({
      cursor: null,
    });
    expect(succeeded(await api.getSubredditRules({ name: community.name })).data.subreddit).toBeTruthy();
    expect(succeeded(await api.getUserProfile({ name: post.author! })).data.user?.author).toBe(post.author);
    const end = succeeded(await api.getAccount());
    expect(end.data.credits_balance).toBe(100 - 6);
    expect(end._service.credits_remaining).toBe(94);
  });

  it("returns the gateway's 400 message as a bad_request, charging nothing", async () => {
    const before = succeeded(await api.getAccount()).data.credits_balance;
    const result = await api.getCommentTree({ post_id: "not an id!" });
    expect(!result.ok && result.error).toMatchObject({ kind: "bad_request", status: 400 });
    if (!result.ok) expect(result.error.message).toContain("post_id");
    expect(succeeded(await api.getAccount()).data.credits_balance).toBe(before);
  });

  it("keeps a hostile path name inside its segment: the gateway sees it and refuses it with 400", async () => {
    const result = await api.getUserProfile({ name: "../account" });
    expect(!result.ok && result.error).toMatchObject({ kind: "bad_request", status: 400 });
  });

  it("returns unauthorized for an unknown key and insufficient_credits for an empty one", async () => {
    const unknown = await api.getAccount({ apiKey: `rdk_${"x".repeat(43)}` });
    expect(!unknown.ok && unknown.error).toMatchObject({ kind: "unauthorized", status: 401 });
    const { key: empty } = await stack.createKey({ credits: 0 });
    const broke = await api.searchSubreddits({ q: "a" }, { apiKey: empty });
    expect(!broke.ok && broke.error).toMatchObject({ kind: "insufficient_credits", status: 402 });
  });

  it("returns upstream_unavailable when the data source fails, and the credit comes back", async () => {
    const before = succeeded(await api.getAccount()).data.credits_balance;
    await stack.fault({ mode: "error", rate: 1 });
    const result = await api.searchSubreddits({ q: "a" });
    await stack.clearFaults();
    expect(!result.ok && result.error).toMatchObject({ kind: "upstream_unavailable", status: 502 });
    await waitFor(
      async () => succeeded(await api.getAccount()).data.credits_balance === before,
      "the refund",
    );
  });
});

describe("paging with for await against the running gateway", () => {
  /** A window of about 30 posts, small enough for one 100-row page, so the whole listing is known. */
  async function wholeListing(sort: "asc" | "desc") {
    const newest = succeeded(await api.listPosts({ subreddit: "typescript", limit: 100 })).data;
    const params = { subreddit: "typescript", after: newest[30]!.created_utc!, sort } as const;
    const whole = succeeded(await api.listPosts({ ...params, limit: 100 }));
    expect(whole._service.has_more).toBe(false);
    expect(whole.data.length).toBeGreaterThan(6);
    return { params, ids: whole.data.map((post) => post.id) };
  }

  it("follows the cursor as `before` newest first, page by page, until has_more is false, 1 credit a page", async () => {
    const { params, ids } = await wholeListing("desc");
    const balance = succeeded(await api.getAccount()).data.credits_balance;
    const seen: string[] = [];
    let pages = 0;
    for await (const page of api.postPages({ ...params, limit: 7 })) {
      pages += 1;
      expect(page.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.data.map((post) => post.id!));
    }
    expect(seen).toEqual(ids);
    expect(pages).toBeGreaterThan(1);
    expect(succeeded(await api.getAccount()).data.credits_balance).toBe(balance - pages);
  });

  it("follows the cursor as `after` oldest first, and yields single posts with posts()", async () => {
    const { params, ids } = await wholeListing("asc");
    const seen: string[] = [];
    for await (const post of api.posts({ ...params, limit: 9 })) seen.push(post.id!);
    expect(seen).toEqual(ids);
  });

  it("stops after maxPages, and throws a GatewayApiError for a failing page", async () => {
    let pages = 0;
    for await (const _ of api.commentPages({ subreddit: "typescript", limit: 5 }, { maxPages: 2 }))
      pages += 1;
    expect(pages).toBe(2);
    const failing = api.postPages({ subreddit: "typescript", limit: 500 });
    await expect(failing.next()).rejects.toMatchObject({
      name: "GatewayApiError",
      kind: "bad_request",
      status: 400,
    });
  });
});

describe("the archive's search methods against the running gateway", () => {
  let searchApi: GatewayClient;

  beforeAll(async () => {
    const { key } = await stack.createKey({ credits: 1_000 });
    searchApi = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: key });
  });

  it("walks a user search by rank with users(), the same users a single larger page holds", async () => {
    const walked: string[] = [];
    for await (const user of searchApi.users({ author_prefix: "b", limit: 4 }, { maxPages: 3 })) {
      walked.push(user.author);
    }
    const single = succeeded(await searchApi.searchUsers({ author_prefix: "b", limit: 12 }));
    expect(walked).toEqual(single.data.map((user) => user.author));
    expect(single._service).toMatchObject({ cursor: 12, has_more: true });
  });

  it("walks one post's comments with comments({link_id}) and counts activity with getActivity", async () => {
    const posts = succeeded(await searchApi.listPosts({ subreddit: "Cooking", before: "3d", limit: 50 }));
    const post = posts.data.find((candidate) => (candidate.num_comments ?? 0) >= 5)!;
    const ids: string[] = [];
    for await (const comment of searchApi.comments({ link_id: post.id!, limit: 3 })) ids.push(comment.id!);
    expect(ids).toHaveLength(post.num_comments!);
    expect(new Set(ids).size).toBe(ids.length);

    const activity = succeeded(
      await searchApi.getActivity({ subreddit: "Cooking", after: "3d", interval: "hour" }),
    );
    expect(activity.data.buckets.length).toBeGreaterThanOrEqual(72);
    expect(activity.data.total).toBe(activity.data.buckets.reduce((sum, bucket) => sum + bucket.count, 0));
    expect(activity._service.credits_used).toBe(1);
  });
});
