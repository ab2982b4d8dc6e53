/**
 * The pacer shared by adapter replicas, on real Redis: two pacers on the same keys stand for two
 * replicas. Together they keep the cap in flight and the request rate, and refuse, without sending,
 * while the upstream's window is spent.
 */
import { type Redis, redisKeys } from "@rda/service-kit";
import { connectTestRedis, deleteNamespaceKeys, testNamespace, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createRedisPacer, type PacerSettings, type Turn, type UpstreamPacer } from "../src/index.ts";

let redis: Redis;
let namespace: string;
const namespaces: string[] = [];
const far = () => Date.now() + 30_000;

beforeEach(async () => {
  redis ??= await connectTestRedis();
  namespace = testNamespace("pacer");
  namespaces.push(namespace);
});
afterAll(async () => {
  for (const used of namespaces) await deleteNamespaceKeys(redis, used);
  await redis.quit();
});

function replicas(settings: PacerSettings): [UpstreamPacer, UpstreamPacer] {
  const keys = redisKeys(namespace).upstreamPacer;
  return [createRedisPacer(redis, keys, settings), createRedisPacer(redis, keys, settings)];
}

/**
 * The callers told to wait for a turn, as the pacer keeps them: interactive callers by lease, each
 * scored by when its wait lapses (pushed on each time it is told to wait again), and the flows of
 * every class waiting (`<class>|<account>`).
 */
async function waitingCallers(): Promise<Map<string, number>> {
  const flat = await redis.zrange(redisKeys(namespace).upstreamPacer.waiting, "0", "-1", "WITHSCORES");
  const callers = new Map<string, number>();
  for (let at = 0; at < flat.length; at += 2) callers.set(flat[at]!, Number(flat[at + 1]));
  return callers;
}

async function waitingFlows(): Promise<string[]> {
  return redis.zrange(redisKeys(namespace).upstreamPacer.queued, "0", "-1");
}

function granted(turn: Turn): Extract<Turn, { granted: true }> {
  if (!turn.granted) throw new Error(`no turn: ${turn.reason}`);
  return turn;
}

describe("the shared upstream pacer", () => {
  it("lets no more requests be in flight than the cap, across replicas, and frees a place when one ends", async () => {
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 2 });
    const order: number[] = [];
    const turns = [a, b, a, b, a].map((pacer, index) =>
      pacer.turn({ waitUntilMs: far() }).then((turn) => {
        order.push(index);
        return granted(turn);
      }),
    );
    // The three past the cap are told to wait, and each asks again and is told so again.
    let toldToWait = new Map<string, number>();
    await waitFor(async () => {
      toldToWait = await waitingCallers();
      return toldToWait.size === 3;
    }, "the three callers past the cap told to wait");
    await waitFor(async () => {
      const now = await waitingCallers();
      // A caller gone from the set was given its turn: asked again, too.
      return [...toldToWait].every(([lease, at]) => (now.get(lease) ?? Number.POSITIVE_INFINITY) > at);
    }, "each of them asking again");
    expect(order).toHaveLength(2);
    const first = await turns[order[0]!]!;
    first.finish();
    await waitFor(() => order.length === 3 || undefined, "a third turn once a place was freed");
    for (const index of order.slice(1)) (await turns[index]!).finish();
    for (const turn of await Promise.all(turns)) turn.finish();
    expect(order).toHaveLength(5);
  });

  it("spaces requests to the rate, across replicas", async () => {
    const [a, b] = replicas({ requestsPerSecond: 5, concurrency: 10 });
    const started = Date.now();
    for (const pacer of [a, b, a, b]) granted(await pacer.turn({ waitUntilMs: far() })).finish();
    // Four turns at 5 a second: three intervals of 200 ms at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
  });

  it("refuses at once while the upstream reports its window spent, with the seconds until it turns", async () => {
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 2 });
    granted(await a.turn({ waitUntilMs: far() })).finish({
      rateLimited: false,
      remaining: 0,
      resetAtMs: Date.now() + 4_500,
    });
    const refused = await b.turn({ waitUntilMs: far() });
    expect(refused).toMatchObject({ granted: false, reason: "window_spent" });
    expect(!refused.granted && refused.retryAfterSeconds).toBeGreaterThanOrEqual(4);
    expect(!refused.granted && refused.retryAfterSeconds).toBeLessThanOrEqual(5);
  });

  it("closes the window on a 429 until its reset, a minute when the upstream named none", async () => {
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 2 });
    granted(await a.turn({ waitUntilMs: far() })).finish({ rateLimited: true });
    const refused = await b.turn({ waitUntilMs: far() });
    expect(refused).toMatchObject({ granted: false, reason: "window_spent" });
    expect(!refused.granted && refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
  });

  it("counts the remaining requests down itself, keeping the others in flight in mind", async () => {
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 3 });
    const resetAtMs = Date.now() + 20_000;
    const held = granted(await a.turn({ waitUntilMs: far() }));
    // The upstream says 3 left; one other request is out and may not have been counted yet.
    granted(await b.turn({ waitUntilMs: far() })).finish({ rateLimited: false, remaining: 3, resetAtMs });
    held.finish();
    granted(await a.turn({ waitUntilMs: far() })).finish();
    granted(await b.turn({ waitUntilMs: far() })).finish();
    expect(await a.turn({ waitUntilMs: far() })).toMatchObject({ granted: false, reason: "window_spent" });
  });

  it("gives up waiting for a turn when the caller's time runs out, saying when to come back", async () => {
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 1 });
    const held = granted(await a.turn({ waitUntilMs: far() }));
    const refused = await b.turn({ waitUntilMs: Date.now() + 200 });
    expect(refused).toMatchObject({ granted: false, reason: "queue_full", retryAfterSeconds: 1 });
    held.finish();
  });

  it("frees the place of a replica that died holding it, once its lease runs out", async () => {
    const [a] = replicas({ requestsPerSecond: 1_000, concurrency: 1 });
    const keys = redisKeys(namespace).upstreamPacer;
    // Timed from before Redis' clock is read: the round trips that place the lease must not count
    // against the 400 ms it holds the place.
    const started = Date.now();
    const [seconds = 0, micros = 0] = (await redis.time()).map(Number);
    const nowMs = seconds * 1000 + Math.floor(micros / 1000);
    await redis.zadd(keys.leases, nowMs + 400, "lease-of-a-killed-replica");
    granted(await a.turn({ waitUntilMs: far() })).finish();
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it("serves an interactive request before background work queued ahead of it, across replicas", async () => {
    // Shares so small that no background class counts as starved during the test.
    const backgroundShares = { monitors: 0.0001, exports: 0.0001 };
    const [a, b] = replicas({ requestsPerSecond: 1_000, concurrency: 1, backgroundShares });
    const held = granted(await a.turn({ waitUntilMs: far() }));
    const order: string[] = [];
    const ask = (pacer: UpstreamPacer, priority: "interactive" | "monitors" | "exports") =>
      pacer.turn({ waitUntilMs: far(), priority }).then((turn) => {
        order.push(priority);
        granted(turn).finish();
      });
    const background = [ask(a, "monitors"), ask(b, "exports")];
    await waitFor(async () => {
      const flows = await waitingFlows();
      return flows.includes("monitors|") && flows.includes("exports|");
    }, "both background requests queued first");
    const interactive = ask(b, "interactive");
    await waitFor(async () => (await waitingFlows()).includes("interactive|"), "the interactive one queued");
    held.finish();
    await Promise.all([...background, interactive]);
    expect(order[0]).toBe("interactive");
    expect(order.slice(1).sort()).toEqual(["exports", "monitors"]);
  });

  it("never starves background work, however busy interactive traffic keeps the budget", async () => {
    const keys = redisKeys(namespace).upstreamPacer;
    const settings = { requestsPerSecond: 50, concurrency: 2, backgroundShares: { exports: 0.25 } };
    const [a, b] = [createRedisPacer(redis, keys, settings), createRedisPacer(redis, keys, settings)];
    let busy = true;
    let interactiveTurns = 0;
    const interactiveLoop = async (pacer: UpstreamPacer) => {
      while (busy) {
        const turn = granted(await pacer.turn({ waitUntilMs: far() }));
        interactiveTurns += 1;
        setTimeout(() => turn.finish(), 30);
      }
    };
    const loops = [a, b, a, b].map(interactiveLoop);
    // Four loops on two places: from here on interactive callers are always waiting.
    await waitFor(() => interactiveTurns > 5, "interactive traffic keeping every place busy");
    const exportTurn = granted(await b.turn({ waitUntilMs: far(), priority: "exports" }));
    exportTurn.finish();
    busy = false;
    await Promise.all(loops);
  });
});

describe("fair shares within a class", () => {
  it("serves a light account's requests within a couple of turns while another account has 40 queued", async () => {
    const [a, b] = replicas({ requestsPerSecond: 10, concurrency: 10, interactiveWaitMs: 30_000 });
    let heavyGranted = 0;
    const heavy = Array.from({ length: 40 }, (_, index) =>
      (index % 2 ? a : b).turn({ waitUntilMs: far(), account: "acct_heavy" }).then((turn) => {
        heavyGranted += 1;
        granted(turn).finish();
        return Date.now();
      }),
    );
    // The heavy account's queue built up: every one of its 40 turns asked for (they take 4 s).
    await waitFor(
      async () => heavyGranted + (await waitingCallers()).size >= 40,
      "all 40 of the heavy account's turns granted or waiting",
    );
    const waits: number[] = [];
    for (const pacer of [a, b, a, b, a]) {
      const asked = Date.now();
      granted(await pacer.turn({ waitUntilMs: far(), account: "acct_light" })).finish();
      waits.push(Date.now() - asked);
    }
    const heavyDone = await Promise.all(heavy);
    // Without fair shares each light turn would wait behind the heavy queue (seconds); with them, one
    // interval, a grace period and the polling between (well under a second on a loaded machine).
    expect(Math.max(...waits)).toBeLessThan(1_500);
    // The light account took its turns while the heavy one still had requests waiting.
    expect(Math.max(...heavyDone)).toBeGreaterThan(Date.now() - 5_000);
    expect(heavyDone.filter((at) => at > Date.now()).length).toBe(0);
  }, 20_000);

  it("tells an interactive caller our budget is spent once its wait passes the bound, with an honest Retry-After", async () => {
    const [a] = replicas({ requestsPerSecond: 1, concurrency: 1, interactiveWaitMs: 600 });
    const holder = granted(await a.turn({ waitUntilMs: far(), account: "acct_one" }));
    const asked = Date.now();
    const refused = await a.turn({ waitUntilMs: far(), account: "acct_two" });
    holder.finish();
    expect(refused).toMatchObject({ granted: false, reason: "queue_full" });
    expect(Date.now() - asked).toBeLessThan(3_000);
    expect(!refused.granted && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});
