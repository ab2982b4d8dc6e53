/**
 * The background kit over real NATS and Redis: the one adapter caller turns every way an adapter
 * call ends into one outcome (what the adapter asked was sent, untouched), and the one lease lets
 * one holder at a time work, frees only for its owner, is kept by renewing, and fences a holder whose
 * lease ran out.
 */
import { buildSubjects, encodeAdapterReply } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAdapter,
  LEASE_STILL_HELD,
  luaScript,
  type NatsConnection,
  type Redis,
  serveSubject,
  takeLease,
  withLease,
} from "../src/index.ts";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  waitFor,
} from "../src/testing/index.ts";

const namespace = testNamespace("kit");
const subjects = buildSubjects(namespace);
let nats: NatsConnection;
let redis: Redis;

beforeAll(async () => {
  [nats, redis] = await Promise.all([connectTestNats(), connectTestRedis()]);
});
afterAll(async () => {
  await deleteNamespaceKeys(redis, namespace);
  await redis.quit();
  await nats.close();
});

describe("the one adapter caller", () => {
  it("sends the one request shape and reads every reply into one outcome", async () => {
    const asked: unknown[] = [];
    const replies = [
      encodeAdapterReply({ outcome: "ok", cursor: 17, has_more: true, source: "cache" }, '[{"id":"a"}]'),
      encodeAdapterReply({ outcome: "budget_spent", message: "no turn", retry_after_seconds: 3 }),
      encodeAdapterReply({ outcome: "bad_request", message: "no such subreddit" }),
      new TextEncoder().encode("not a frame"),
    ];
    const served = serveSubject(nats, {
      subject: subjects.adapter.listPosts,
      queue: "adapter-posts",
      logger: silentLogger(),
      handler: async (payload) => {
        asked.push(JSON.parse(new TextDecoder().decode(payload)));
        return replies[asked.length - 1] ?? new Uint8Array();
      },
    });
    await nats.flush();
    const ask = {
      operation: "listPosts" as const,
      requestId: "req_kit_1",
      params: { subreddit: "rust", sort: "asc" },
      priority: "exports" as const,
      account: "acct_1",
      timeoutMs: 5_000,
    };
    const ok = await callAdapter(nats, subjects, ask);
    expect(ok).toMatchObject({ outcome: "ok", cursor: 17, hasMore: true, source: "cache" });
    expect(ok.outcome === "ok" && new TextDecoder().decode(ok.data)).toBe('[{"id":"a"}]');
    expect(asked[0]).toEqual({
      request_id: "req_kit_1",
      params: { subreddit: "rust", sort: "asc" },
      priority: "exports",
      account: "acct_1",
    });
    expect(await callAdapter(nats, subjects, ask)).toEqual({
      outcome: "budget_spent",
      message: "no turn",
      retryAfterSeconds: 3,
    });
    expect(await callAdapter(nats, subjects, ask)).toEqual({
      outcome: "bad_request",
      message: "no such subreddit",
    });
    expect((await callAdapter(nats, subjects, ask)).outcome).toBe("malformed_reply");
    await served.stop();
  });

  it("says no adapter answered when none is there", async () => {
    const answer = await callAdapter(nats, subjects, {
      operation: "getActivity",
      requestId: "req_kit_2",
      params: {},
      timeoutMs: 2_000,
    });
    expect(answer).toMatchObject({ outcome: "no_answer", failure: "no_responders" });
  });
});

describe("the one lease", () => {
  const write = luaScript(`${LEASE_STILL_HELD}
redis.call('SET', KEYS[2], ARGV[2])
return 1`);

  it("is held by one owner at a time, and freed only by its owner", async () => {
    const key = `${namespace}:lease:one`;
    const first = await takeLease(redis, key, "replica-a", 10_000);
    expect(first?.owner).toBe("replica-a");
    expect(await takeLease(redis, key, "replica-b", 10_000)).toBeUndefined();
    const busy = await withLease(redis, key, 10_000, async () => "worked");
    expect(busy).toEqual({ held: false });
    await first?.release();
    expect(await withLease(redis, key, 10_000, async () => "worked")).toEqual({
      held: true,
      value: "worked",
    });
    // withLease freed it afterwards.
    expect(await redis.exists(key)).toBe(0);
  });

  it("ends by itself when its holder stalls, and the stalled holder can neither write nor free it", async () => {
    const key = `${namespace}:lease:stall`;
    const state = `${namespace}:lease:stall:state`;
    const stalled = await takeLease(redis, key, "replica-a", 100);
    const successor = await waitFor(() => takeLease(redis, key, "replica-b", 10_000), "the lease to run out");
    expect(await write.run(redis, [key, state], ["replica-a", "stale"])).toBe(0);
    await stalled?.release();
    expect(await redis.get(key)).toBe("replica-b");
    expect(await write.run(redis, [key, state], ["replica-b", "fresh"])).toBe(1);
    expect(await redis.get(state)).toBe("fresh");
    await successor?.release();
  });

  it("is kept by renewing it while its holder works, and a holder that lost it learns so on renewing", async () => {
    const key = `${namespace}:lease:renew`;
    const holder = await takeLease(redis, key, "replica-a", 1_000);
    // Renewed four times over longer than its time: never free for another meanwhile.
    for (let turn = 0; turn < 4; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await holder?.renew()).toBe(true);
      expect(await takeLease(redis, key, "replica-b", 10_000)).toBeUndefined();
    }
    const successor = await waitFor(() => takeLease(redis, key, "replica-b", 10_000), "the lease to run out");
    expect(await holder?.renew()).toBe(false);
    expect(await redis.get(key)).toBe("replica-b");
    await successor?.release();
  });
});
