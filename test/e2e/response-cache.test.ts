/**
 * The shared response cache through the whole stack (docs/api.md#freshness): two replicas of every
 * adapter on one cache, the simulator counting what reaches the upstream. Every answer says how old
 * it is (`Age`, `_service.cached_at`) and costs 1 credit, cached or not; `Cache-Control` bounds the
 * age; identical concurrent requests on two replicas cost one upstream request; errors are never
 * served again.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ responseCache: {}, adapterReplicas: 2, simulatorLatencyMs: 300 });
}, 60_000);
afterAll(async () => stack?.stop());

async function simTotal(): Promise<number> {
  return ((await (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json()) as { total: number }).total;
}

async function get(path: string, key: string, headers: Record<string, string> = {}) {
  const answer = await getJson(`${stack.gatewayUrl}${path}`, { ...withKey(key), ...headers });
  const service = answer.body._service as { cached_at?: number; credits_remaining: number } | undefined;
  return { ...answer, service, age: answer.headers.get("age") };
}

describe("the shared response cache through the stack", () => {
  it("serves a repeated request from the cache, saying how old it is, and charges 1 credit each time", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.probe.subredditNames()[0];
    const path = `/v1/posts?subreddit=${subreddit}&limit=7`;
    const before = await simTotal();
    const first = await get(path, key);
    const second = await get(path, key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await simTotal()).toBe(before + 1);
    const nowS = Date.now() / 1000;
    expect(first.service?.cached_at).toBeGreaterThan(nowS - 10);
    expect(second.service?.cached_at).toBe(first.service?.cached_at);
    expect(Number(first.age)).toBeGreaterThanOrEqual(0);
    expect(Number(second.age)).toBeLessThanOrEqual(30);
    expect(second.body.data).toEqual(first.body.data);
    expect([first.service?.credits_remaining, second.service?.credits_remaining]).toEqual([9, 8]);
  });

  it("serves a repeated request after admission from the kept answer alone: no adapter message, same body, 1 credit", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.probe.subredditNames()[3];
    const path = `/v1/posts?subreddit=${subreddit}&limit=11`;
    let adapterMessages = 0;
    const watch = stack.nats.subscribe(stack.subjects.adapter.listPosts, {
      callback: () => {
        adapterMessages += 1;
      },
    });
    await stack.nats.flush();
    const first = await get(path, key);
    await stack.nats.flush();
    expect(adapterMessages).toBe(1);
    const again = await Promise.all(Array.from({ length: 5 }, () => get(path, key)));
    await stack.nats.flush();
    watch.unsubscribe();
    expect(adapterMessages).toBe(1);
    for (const answer of again) {
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual(first.body.data);
      expect(answer.service?.cached_at).toBe(first.service?.cached_at);
      expect(Number(answer.age)).toBeLessThanOrEqual(30);
    }
    const remaining = again.map((answer) => Number(answer.service?.credits_remaining));
    expect(remaining.sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8]);
  });

  it("answers a smaller limit, a fields projection and a q filter of a cached window from its one upstream page, exactly as a fresh fetch does", async () => {
    const { key } = await stack.createKey({ credits: 20 });
    const subreddit = stack.simulator.probe.subredditNames()[4];
    const window = `/v1/posts?subreddit=${subreddit}`;
    const full = await get(`${window}&limit=100`, key);
    expect(full.status).toBe(200);
    const fetched = await simTotal();
    const variants = [
      `${window}&limit=10`,
      `${window}&limit=25&fields=id,title,created_utc`,
      `${window}&limit=100&q=the`,
    ];
    const cached = [];
    for (const path of variants) cached.push(await get(path, key));
    // Every variant came from the full page already fetched: nothing more reached the upstream.
    expect(await simTotal()).toBe(fetched);
    for (const [index, path] of variants.entries()) {
      const fresh = await get(path, key, { "cache-control": "no-cache" });
      expect(fresh.age).toBe("0");
      expect(cached[index]!.body.data).toEqual(fresh.body.data);
      const paging = (answer: typeof fresh) => answer.body._service as { cursor: unknown; has_more: unknown };
      expect([paging(cached[index]!).cursor, paging(cached[index]!).has_more]).toEqual([
        paging(fresh).cursor,
        paging(fresh).has_more,
      ]);
    }
    // A smaller page is the head of the full one, cut so no second is split: the cursor is its last row.
    const fullIds = (full.body.data as { id: string }[]).map((row) => row.id);
    const head = cached[0]!.body.data as { id: string; created_utc: number }[];
    expect(head.length).toBeGreaterThan(0);
    expect(head.map((row) => row.id)).toEqual(fullIds.slice(0, head.length));
    expect((cached[0]!.body._service as { cursor: number }).cursor).toBe(head.at(-1)!.created_utc);
    const projected = cached[1]!.body.data as Record<string, unknown>[];
    for (const row of projected) expect(Object.keys(row).sort()).toEqual(["created_utc", "id", "title"]);
  });

  it("fetches again for Cache-Control: no-cache and for a max-age below the entry's age", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const name = stack.simulator.probe.subredditNames()[1];
    const path = `/v1/subreddits/${name}/rules`;
    const before = await simTotal();
    const first = await get(path, key);
    expect(first.status).toBe(200);
    const cached = await get(path, key, { "cache-control": "max-age=600" });
    expect(cached.service?.cached_at).toBe(first.service?.cached_at);
    const fresh = await get(path, key, { "cache-control": "no-cache" });
    const freshBy = Date.now(); // the entry it left was fetched before this
    expect(fresh.age).toBe("0");
    expect(await simTotal()).toBe(before + 2);
    await waitFor(() => Date.now() - freshBy > 1_000, "the entry older than max-age=1");
    const bounded = await get(path, key, { "cache-control": "max-age=1" });
    expect(bounded.age).toBe("0");
    expect(await simTotal()).toBe(before + 3);
    expect(bounded.service?.credits_remaining).toBe(6);
  });

  it("makes identical concurrent requests on two adapter replicas one upstream request", async () => {
    const { key } = await stack.createKey({ credits: 50 });
    const post = stack.simulator.probe.posts({}, 3)[2];
    const path = `/v1/comments/tree?post_id=${post?.id}&limit=13`;
    const before = await simTotal();
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(path, key)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(await simTotal()).toBe(before + 1);
    expect(new Set(answers.map((answer) => answer.text.replace(/"_service":.*$/, ""))).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.service?.cached_at)).size).toBe(1);
  });

  it("never serves an upstream failure again", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.probe.subredditNames()[2];
    const path = `/v1/posts?subreddit=${subreddit}&limit=9`;
    await stack.fault({ mode: "error", rate: 1, path: "/api/posts/search" });
    const failed = await get(path, key);
    await stack.clearFaults();
    expect(failed.status).toBe(502);
    const served = await get(path, key);
    expect(served.status).toBe(200);
    expect(served.age).toBe("0");
    expect(served.service?.credits_remaining).toBe(9); // the failure was refunded, the answer charged
  });

  it("asks the adapter again, never failing, when a kept answer is not an answer it can serve", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.probe.subredditNames()[6];
    const path = `/v1/posts?subreddit=${subreddit}&limit=13`;
    const kept = async () => new Set(await stack.redis.keys(stack.keys.upstreamCache.answer("*")));
    const keptBefore = await kept();
    const first = await get(path, key);
    expect(first.status).toBe(200);
    const [answerKey, ...others] = [...(await kept())].filter((name) => !keptBefore.has(name));
    expect(answerKey).toBeDefined();
    expect(others).toEqual([]);
    let adapterMessages = 0;
    const watch = stack.nats.subscribe(stack.subjects.adapter.listPosts, {
      callback: () => {
        adapterMessages += 1;
      },
    });
    await stack.nats.flush();
    // A head without its freshness, then bytes that are not a frame at all: each a miss.
    const damaged = ['{"outcome":"ok","cursor":null,"has_more":false}\n[]', "not a frame"];
    const served = [];
    for (const value of damaged) {
      await stack.redis.set(answerKey!, value, "KEEPTTL");
      served.push(await get(path, key));
    }
    await stack.nats.flush();
    watch.unsubscribe();
    expect(adapterMessages).toBe(2);
    for (const answer of served) {
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual(first.body.data);
    }
    expect(served.map((answer) => answer.service?.credits_remaining)).toEqual([8, 7]);
  });
});
