/**
 * The response cache shared by adapter replicas, on real Redis against a real HTTP upstream: two
 * clients on the same keys stand for two replicas. Identical calls become one upstream request
 * anywhere in the cluster; answers are served again within their bound and the caller's; failures
 * and empty pages are never served again; a cache that cannot be reached costs only the saving.
 */
import { connectRedis, type Redis, redisKeys } from "@rda/service-kit";
import {
  connectTestRedis,
  deleteNamespaceKeys,
  freePort,
  silentLogger,
  testNamespace,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createRedisCacheStore,
  createUpstreamClient,
  type FetchSource,
  type FreshnessBounds,
  type SharedCacheStore,
  type UpstreamClient,
} from "../src/index.ts";
import { json, type Script, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

let redis: Redis;
let namespace: string;
const namespaces: string[] = [];
let server: ScriptedServer | undefined;
const clients: UpstreamClient[] = [];

beforeEach(async () => {
  redis ??= await connectTestRedis();
  namespace = testNamespace("cache");
  namespaces.push(namespace);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  for (const used of namespaces) await deleteNamespaceKeys(redis, used);
  await redis.quit();
});

const BOUNDS: FreshnessBounds = { freshS: 30, settledS: 3600, userS: 600 };
const LIMITS = { maxBytes: 1024 * 1024, maxEntryBytes: 256 * 1024, longestTtlS: 3600 };
const POSTS = [{ id: "a1", created_utc: 1_600_000_000, title: "old" }];

async function upstream(script: Script): Promise<ScriptedServer> {
  server = await startScriptedServer(script);
  return server;
}

/**
 * How far the replicas' callers have got, as their cache stores saw it: the lookups answered (each
 * caller then runs its fetch or joins one in its own process), the looks at another replica's
 * fetch (a caller waiting on it), and the renewals of a fetch's claim.
 */
interface Progress {
  reads: number;
  watches: number;
  renewals: number;
}

function counting(store: SharedCacheStore, progress: Progress): SharedCacheStore {
  return {
    ...store,
    limits: store.limits,
    read: async (hash) => {
      const entry = await store.read(hash);
      progress.reads += 1;
      return entry;
    },
    watch: (hash, token) => {
      progress.watches += 1;
      return store.watch(hash, token);
    },
    renew: async (hash, token, leaseMs) => {
      await store.renew(hash, token, leaseMs);
      progress.renewals += 1;
    },
  };
}

function replica(
  options: { bounds?: FreshnessBounds; limits?: typeof LIMITS; cacheRedis?: Redis; progress?: Progress } = {},
): UpstreamClient {
  if (!server) throw new Error("start the upstream first");
  const redisStore = createRedisCacheStore(
    options.cacheRedis ?? redis,
    redisKeys(namespace).upstreamCache,
    options.limits ?? LIMITS,
  );
  const store = options.progress ? counting(redisStore, options.progress) : redisStore;
  const client = createUpstreamClient({
    baseUrl: server.url,
    cache: { store, bounds: options.bounds ?? BOUNDS },
    logger: silentLogger(),
    backoffBaseMs: 5,
    backoffCapMs: 20,
    deadlineMs: 4_000,
  });
  clients.push(client);
  return client;
}

/** One call, with where its answer came from and when the upstream produced it. */
async function ask(client: UpstreamClient, query: Record<string, string | number>, maxAgeS?: number) {
  let answer: { fetchedAtMs: number; source: FetchSource; maxAgeS: number | undefined } | undefined;
  const result = await client.get("/api/posts/search", query, {
    maxAgeS,
    onAnswer: (seen) => {
      answer = seen;
    },
  });
  return { result, answer };
}

const noProgress = (): Progress => ({ reads: 0, watches: 0, renewals: 0 });

describe("the response cache shared by adapter replicas", () => {
  it("makes identical concurrent calls on two replicas one upstream request, with the same answer for all", async () => {
    const held: Array<() => void> = [];
    await upstream((_request, response) => held.push(() => json(response, 200, { data: POSTS })));
    const progress = noProgress();
    const [a, b] = [replica({ progress }), replica({ progress })];
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const calls = [a, b, a, b, b].map((client) => ask(client, query));
    await waitFor(
      () => held.length === 1 && progress.reads === 5 && progress.watches > 0,
      "every caller waiting on the one request in flight (the other replica's too)",
    );
    for (const release of held) release();
    const answers = await Promise.all(calls);
    expect(server?.paths).toHaveLength(1);
    for (const { result } of answers) expect(result).toMatchObject({ outcome: "ok", body: { data: POSTS } });
    const fetchedAt = new Set(answers.map(({ answer }) => answer?.fetchedAtMs));
    expect(fetchedAt.size).toBe(1);
    expect(a.stats().coalesced + b.stats().coalesced).toBe(4);
    expect(a.stats().requests + b.stats().requests).toBe(1);
  });

  it("lets the waiters of a replica that died mid-fetch fetch themselves, within their deadline", async () => {
    // The dying replica's upstream never answers, and it renews nothing: as a replica killed
    // mid-fetch leaves its claim. Its own deadline is long, so only the claim's lease can free it.
    const silent = await startScriptedServer(() => {});
    const store = createRedisCacheStore(redis, redisKeys(namespace).upstreamCache, LIMITS);
    const dead = { ...store, limits: store.limits, renew: () => Promise.reject(new Error("killed")) };
    const dying = createUpstreamClient({
      baseUrl: silent.url,
      cache: { store: dead, bounds: BOUNDS },
      logger: silentLogger(),
      deadlineMs: 60_000,
    });
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const lost = dying.get("/api/posts/search", query).catch(() => undefined);
    await waitFor(() => silent.paths.length === 1, "the dying replica's fetch under way");
    // Asked at once after the death, so it waits the dead claim's whole lease: the claim must lapse
    // with time left for its own fetch, well within a deadline of seconds, not the dead one's minute.
    const survivor = createUpstreamClient({
      baseUrl: server!.url,
      cache: { store, bounds: BOUNDS },
      logger: silentLogger(),
      deadlineMs: 3_000,
      attemptTimeoutMs: 1_500,
    });
    clients.push(survivor);
    const { result, answer } = await ask(survivor, query);
    expect(result).toMatchObject({ outcome: "ok", body: { data: POSTS } });
    expect(answer?.source).toBe("upstream");
    await silent.close();
    await dying.close();
    await lost;
  });

  it("keeps a live replica's claim past one lease while its fetch is slow: the other replica joins it", async () => {
    const held: Array<() => void> = [];
    await upstream((_request, response) => held.push(() => json(response, 200, { data: POSTS })));
    const [holding, waiting] = [noProgress(), noProgress()];
    const [a, b] = [replica({ progress: holding }), replica({ progress: waiting })];
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const first = ask(a, query);
    await waitFor(() => held.length === 1, "the first replica's fetch under way");
    const second = ask(b, query);
    // The claim is renewed every third of its lease: four renewals while the other replica waits
    // are more than a lease gone by, which would have freed an unrenewed claim (and well within
    // the first fetch's attempt, so it is still the one request).
    await waitFor(() => waiting.watches > 0, "the second replica waiting on the first one's fetch");
    const renewedBefore = holding.renewals;
    await waitFor(() => holding.renewals >= renewedBefore + 4, "more than a lease of the claim renewed");
    for (const release of held) release();
    const answers = await Promise.all([first, second]);
    expect(server?.paths).toHaveLength(1);
    expect(answers.map(({ answer }) => answer?.source)).toEqual(["upstream", "joined"]);
  });

  it("serves a settled page again from either replica, saying when it was fetched, without asking upstream", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const [a, b] = [replica(), replica()];
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const first = await ask(a, query);
    const again = await ask(b, query);
    expect(server?.paths).toHaveLength(1);
    // Settled: both say it may be served again for the settled bound.
    const { settledS } = BOUNDS;
    expect(first.answer).toMatchObject({ source: "upstream", maxAgeS: settledS });
    expect(again.answer).toEqual({
      source: "cache",
      fetchedAtMs: first.answer?.fetchedAtMs,
      maxAgeS: settledS,
    });
    expect(again.result).toMatchObject({ outcome: "ok", body: { data: POSTS } });
    expect(b.stats().cacheHits).toBe(1);
  });

  it("fetches again for no-cache, and for max-age shorter than the entry's age", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const client = replica();
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    await ask(client, query);
    const { answer } = await ask(client, query, 0);
    expect(answer?.source).toBe("upstream");
    expect(server?.paths).toHaveLength(2);
    const fetchedAtMs = answer?.fetchedAtMs ?? 0;
    await waitFor(() => Date.now() - fetchedAtMs > 1_000, "the entry older than a max-age of 1 s");
    expect((await ask(client, query, 1)).answer?.source).toBe("upstream");
    expect(server?.paths).toHaveLength(3);
    expect((await ask(client, query, 60)).answer?.source).toBe("cache");
    expect(server?.paths).toHaveLength(3);
  });

  it("serves a page of the last 36 hours no longer than the fresh bound", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const client = replica({ bounds: { ...BOUNDS, freshS: 1 } });
    const query = { subreddit: "pics", limit: 100 }; // no upper bound: reaches into now
    const { answer } = await ask(client, query);
    expect((await ask(client, query)).answer?.source).toBe("cache");
    const fetchedAtMs = answer?.fetchedAtMs ?? 0;
    await waitFor(() => Date.now() - fetchedAtMs > 1_000, "the entry older than the fresh bound of 1 s");
    expect((await ask(client, query)).answer?.source).toBe("upstream");
    expect(server?.paths).toHaveLength(2);
  });

  it("never serves a failure or an empty page again", async () => {
    await upstream((request, response) => {
      if (request.url?.includes("subreddit=bad")) json(response, 400, { error: "bad subreddit" });
      else json(response, 200, { data: [] });
    });
    const client = replica();
    const empty = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const bad = { subreddit: "bad", before: 1_600_000_100, limit: 100 };
    for (let round = 0; round < 2; round++) {
      expect((await ask(client, empty)).result).toMatchObject({ outcome: "ok", body: { data: [] } });
      expect((await ask(client, bad)).result).toMatchObject({ outcome: "bad_request" });
    }
    expect(server?.paths).toHaveLength(4);
  });

  it("gives every waiter of a failed fetch the same failure, and fetches again afterwards", async () => {
    const held: Array<() => void> = [];
    await upstream((_request, response) =>
      held.push(() => json(response, 400, { error: "Invalid subreddit" })),
    );
    const progress = noProgress();
    const [a, b] = [replica({ progress }), replica({ progress })];
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const calls = [a, b, b].map((client) => ask(client, query));
    await waitFor(
      () => held.length === 1 && progress.reads === 3 && progress.watches > 0,
      "every caller waiting on the one request in flight",
    );
    held.shift()?.();
    const answers = await Promise.all(calls);
    for (const { result } of answers) expect(result).toMatchObject({ outcome: "bad_request" });
    expect(server?.paths).toHaveLength(1);
    const later = ask(a, query);
    await waitFor(() => held.length === 1, "the fetch after the failure under way");
    held.shift()?.();
    await later;
    expect(server?.paths).toHaveLength(2);
  });

  it("stores nothing past its byte cap", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const client = replica({ limits: { ...LIMITS, maxBytes: 400 } });
    const page = (before: number) => ({ subreddit: "pics", before, limit: 100 });
    await ask(client, page(1_600_000_100)); // fits
    await ask(client, page(1_600_000_200)); // would pass the cap: not stored
    expect((await ask(client, page(1_600_000_100))).answer?.source).toBe("cache");
    expect((await ask(client, page(1_600_000_200))).answer?.source).toBe("upstream");
    expect(server?.paths).toHaveLength(3);
  });

  it("counts a page fetched anew again and again (no-cache) once against the cap, so other pages are still kept", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    // Room for two entries of this size, not three.
    const client = replica({ limits: { ...LIMITS, maxBytes: 700 } });
    const page = (before: number) => ({ subreddit: "pics", before, limit: 100 });
    // Each fetch replaces the entry before it expires: its bytes are the one entry's, not one more's.
    for (let fetch = 0; fetch < 5; fetch++) await ask(client, page(1_600_000_100), 0);
    expect((await ask(client, page(1_600_000_100))).answer?.source).toBe("cache");
    await ask(client, page(1_600_000_200));
    expect((await ask(client, page(1_600_000_200))).answer?.source).toBe("cache");
    expect(server?.paths).toHaveLength(6);
  });

  it("fetches uncached, every call answered, while the cache's Redis is down", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    const down = connectRedis(`redis://127.0.0.1:${await freePort()}`, "cache-down", silentLogger());
    const client = replica({ cacheRedis: down });
    const query = { subreddit: "pics", before: 1_600_000_100, limit: 100 };
    const answers = await Promise.all([ask(client, query), ask(client, query)]);
    const again = await ask(client, query);
    down.disconnect();
    for (const { result } of [...answers, again])
      expect(result).toMatchObject({ outcome: "ok", body: { data: POSTS } });
    expect(again.answer?.source).toBe("upstream");
    // The two concurrent calls still share one request in this process; the later one is its own.
    expect(server?.paths).toHaveLength(2);
  });

  it("asks a cache it could not read nothing more for that call: no claim, the fetch straight upstream", async () => {
    await upstream((_request, response) => json(response, 200, { data: POSTS }));
    // The store's read fails as a stalled Redis's would; every other command it is asked is counted.
    const real = createRedisCacheStore(redis, redisKeys(namespace).upstreamCache, LIMITS);
    const asked: string[] = [];
    const failing = new Proxy(real, {
      get(target, name, receiver) {
        const method = Reflect.get(target, name, receiver);
        if (typeof method !== "function") return method;
        if (name === "read") return () => Promise.reject(new Error("Command timed out"));
        return (...args: unknown[]) => {
          asked.push(String(name));
          return method.apply(target, args);
        };
      },
    });
    const client = createUpstreamClient({
      baseUrl: server!.url,
      cache: { store: failing, bounds: BOUNDS },
      logger: silentLogger(),
      deadlineMs: 4_000,
    });
    clients.push(client);
    const { result, answer } = await ask(client, { subreddit: "pics", before: 1_600_000_100, limit: 100 });
    expect(result).toMatchObject({ outcome: "ok", body: { data: POSTS } });
    expect(answer?.source).toBe("upstream");
    // Each stalled command costs a whole timeout: after the failed read, none is sent at all.
    expect(asked).toEqual([]);
  });
});
