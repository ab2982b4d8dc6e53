/**
 * The monitors service, black-box over NATS against the upstream simulator: a backfill then live
 * delivers every match of the window once and in order; a shared source costs one poll per interval
 * however many monitors watch it; a replica's restart loses nothing; another key sees nothing.
 */
import { Registry } from "@rda/service-kit";
import { testNatsUrl, testRedisUrl, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnService } from "../../../test/support/service-processes.ts";
import { type Harness, type Item, pullAll, startHarness } from "./harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

const DAY = 86_400;
/** The crashing replica: main.ts's process with short loops (support/replica-main.ts). */
const REPLICA_MAIN = "services/monitors/test/support/replica-main.ts";
/** Simulated time the test lets pass: the corpus keeps "arriving" posts for days after its start. */
const LATER = 6 * 3600;

/** The community with the most posts arriving within `LATER`, and a word one of them shares with the past. */
async function pickSourceAndPhrase(h: Harness): Promise<{ subreddit: string; phrase: string }> {
  const now = h.simNow();
  const counts = new Map<string, number>();
  const { corpus } = h.simulator;
  for (let post = 0; post < corpus.posts.count; post += 1) {
    const created = corpus.anchor + (corpus.posts.created[post] as number);
    if (created > now - 30 * DAY && created <= now) {
      const name = corpus.subreddits[corpus.posts.sub[post] as number]!.name;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const busiest = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  h.advance(LATER);
  try {
    for (const subreddit of busiest.slice(0, 5)) {
      const arriving = await h.listWithPhrase(subreddit, now, undefined);
      const past = await h.listWithPhrase(subreddit, now - 30 * DAY, undefined);
      const words = new Map<string, number>();
      for (const item of past.filter((row) => row.created_utc <= now))
        for (const word of new Set((item.title ?? "").toLowerCase().match(/\b[a-z]{5,}\b/g) ?? []))
          words.set(word, (words.get(word) ?? 0) + 1);
      for (const item of arriving) {
        const shared = ((item.title ?? "").toLowerCase().match(/\b[a-z]{5,}\b/g) ?? []).find(
          (word) => (words.get(word) ?? 0) >= 3,
        );
        if (shared) return { subreddit, phrase: shared };
      }
    }
  } finally {
    h.advance(-LATER);
  }
  throw new Error("no community with a post arriving within the test's window");
}

function expectOnceInOrder(items: readonly Item[]) {
  expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
  for (let index = 1; index < items.length; index += 1)
    expect(items[index]!.created_utc).toBeGreaterThanOrEqual(items[index - 1]!.created_utc);
}

describe("monitors", () => {
  it("backfills 30 days oldest-first, then follows live: every match once, in order, new ones within two intervals", async () => {
    const registry = new Registry();
    const replica = await harness.startReplica({}, registry);
    const { subreddit, phrase } = await pickSourceAndPhrase(harness);
    const created = await harness.ask("create", {
      key_id: "key_backfill00000000",
      body: { kind: "post", subreddit, phrase, interval_seconds: 2, backfill_from: "30d" },
    });
    if (!created.ok) throw new Error(created.error);
    const { monitor, backfill_estimate } = created.value;
    const from = monitor.backfill_from ?? 0;
    expect(monitor.status).toBe("backfilling");
    expect(backfill_estimate.upstream_pages).toBeGreaterThanOrEqual(1);
    expect(backfill_estimate.max_credits).toBe(backfill_estimate.upstream_pages);

    const window = await harness.listWithPhrase(subreddit, from - 1, phrase);
    expect(window.length).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const answer = await harness.ask("get", { key_id: "key_backfill00000000", id: monitor.id });
        return answer.ok && answer.value.monitor.status === "live";
      },
      "the backfill to finish",
      60_000,
    );
    const backfilled = await pullAll(harness, "key_backfill00000000", monitor.id);
    expect(backfilled.map((item) => item.id)).toEqual(window.map((item) => item.id));

    // Posts created in the simulated hours to come appear at once: they arrive within two intervals.
    harness.advance(LATER);
    const appearedAt = Date.now();
    await waitFor(
      async () => (await pullAll(harness, "key_backfill00000000", monitor.id)).length > backfilled.length,
      "the new matches to arrive",
      30_000,
    );
    expect(Date.now() - appearedAt).toBeLessThan(2 * 2_000 + 2_000);
    const everything = await harness.listWithPhrase(subreddit, from - 1, phrase);
    expect(everything.length).toBeGreaterThan(window.length);
    const delivered = await pullAll(harness, "key_backfill00000000", monitor.id);
    expect(delivered.map((item) => item.id)).toEqual(everything.map((item) => item.id));
    expectOnceInOrder(delivered);
    // Every live delivery's delay from created_utc is measured; the backfill's history is not.
    const metrics = await registry.metrics();
    const measured = Number(/^monitors_delivery_delay_seconds_count (\d+)$/m.exec(metrics)?.[1]);
    expect(measured).toBe(everything.length - window.length);
    await replica.stop();
  }, 120_000);
});

describe("monitors sharing sources", () => {
  it("50 monitors on 5 communities cost 5 upstream polls per interval", async () => {
    const replicas = [await harness.startReplica(), await harness.startReplica()];
    const communities = harness.simulator.corpus.subreddits.slice(0, 5).map((sub) => sub.name);
    const ids: string[] = [];
    for (let index = 0; index < 50; index += 1) {
      const answer = await harness.ask("create", {
        key_id: `key_shared${index % 2}000000000`,
        body: {
          kind: "post",
          subreddit: communities[index % 5],
          phrase: `word${index}`,
          interval_seconds: 3,
        },
      });
      if (!answer.ok) throw new Error(answer.error);
      ids.push(answer.value.monitor.id);
    }
    await waitFor(
      async () => {
        for (const [index, id] of ids.entries()) {
          const answer = await harness.ask("get", { key_id: `key_shared${index % 2}000000000`, id });
          if (!answer.ok || answer.value.monitor.status !== "live") return false;
        }
        return true;
      },
      "every monitor to follow its source",
      30_000,
    );
    const searchPolls = async () => {
      const stats = (await (await fetch(`${harness.simulator.url}/__sim/stats`)).json()) as {
        requests: Record<string, number>;
      };
      return stats.requests["/api/posts/search"] ?? 0;
    };
    await fetch(`${harness.simulator.url}/__sim/stats`, { method: "DELETE" });
    const started = Date.now();
    let polls = 0;
    // Two polls per source: however long the machine takes to get there, the count is compared
    // with the intervals that passed meanwhile.
    await waitFor(
      async () => {
        polls = await searchPolls();
        return polls >= 2 * communities.length;
      },
      "every source to be polled twice",
      60_000,
    );
    const elapsedIntervals = (Date.now() - started) / 3_000;
    // Each source polled at most once per interval (plus one for a poll under way at either end):
    // never once per monitor.
    expect(polls).toBeLessThanOrEqual(5 * (Math.ceil(elapsedIntervals) + 1));
    for (const [index, id] of ids.entries())
      await harness.ask("delete", { key_id: `key_shared${index % 2}000000000`, id });
    for (const replica of replicas) await replica.stop();
  }, 90_000);
});

describe("a restart", () => {
  it("loses nothing: a new replica continues the backfill and follows from the same marks", async () => {
    const first = await harness.startReplica({ backfillPagesPerPoll: 1 });
    const subreddit = harness.simulator.corpus.subreddits[0]!.name;
    const created = await harness.ask("create", {
      key_id: "key_restart000000000",
      body: { kind: "post", subreddit, interval_seconds: 1, backfill_from: "60d" },
    });
    if (!created.ok) throw new Error(created.error);
    const { id } = created.value.monitor;
    // The window starts where the service put it (its own clock), whatever the simulator's says.
    const from = created.value.monitor.backfill_from ?? 0;
    await waitFor(
      async () => (await pullAll(harness, "key_restart000000000", id)).length > 0,
      "the backfill to start",
      30_000,
    );
    const before = await pullAll(harness, "key_restart000000000", id);
    await first.stop();
    const second = await harness.startReplica();
    await waitFor(
      async () => {
        const answer = await harness.ask("get", { key_id: "key_restart000000000", id });
        return answer.ok && answer.value.monitor.status === "live";
      },
      "the new replica to finish the backfill",
      60_000,
    );
    harness.advance(3600);
    const expected = await harness.listWithPhrase(subreddit, from - 1, undefined);
    const delivered = await waitFor(
      async () => {
        const items = await pullAll(harness, "key_restart000000000", id);
        return items.length >= expected.length ? items : undefined;
      },
      "the live items after the restart",
      30_000,
    );
    expect(delivered?.slice(0, before.length)).toEqual(before);
    expect(delivered?.map((item) => item.id)).toEqual(expected.map((item) => item.id));
    expectOnceInOrder(delivered ?? []);
    await second.stop();
  }, 120_000);
});

describe("the monitors API over NATS", () => {
  it("keeps a monitor to its own key, validates every field, and enforces the limit for a key with no account", async () => {
    await harness.startReplica({ limits: { maxMonitorsPerAccount: 2, minIntervalSeconds: 60 } });
    const subreddit = harness.simulator.corpus.subreddits[1]!.name;
    const bad = await harness.ask("create", {
      key_id: "key_api0000000000000",
      body: { kind: "video", subreddit, interval_seconds: 5, backfill_from: "soon", extra: 1 },
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.status).toBe(400);
    for (const field of ["kind", "interval_seconds", "backfill_from", "extra"])
      expect(bad.error).toContain(field);
    const neither = await harness.ask("create", { key_id: "key_api0000000000000", body: { kind: "post" } });
    expect(neither).toMatchObject({ ok: false, status: 400, error: expect.stringContaining("exactly one") });

    const body = { kind: "comment", subreddit, phrase: "hello world", interval_seconds: 60 };
    const mine = await harness.ask("create", { key_id: "key_api0000000000000", body });
    if (!mine.ok) throw new Error(mine.error);
    const { id } = mine.value.monitor;
    for (const action of ["get", "items", "delete"] as const)
      expect(await harness.ask(action, { key_id: "key_other00000000000", id })).toMatchObject({
        ok: false,
        status: 404,
      });
    expect(
      await harness.ask("update", { key_id: "key_other00000000000", id, body: { paused: true } }),
    ).toMatchObject({
      ok: false,
      status: 404,
    });
    expect(
      (await harness.ask("list", { key_id: "key_other00000000000" })).ok &&
        (await harness.ask("list", { key_id: "key_other00000000000" })),
    ).toMatchObject({
      value: { monitors: [] },
    });

    const patched = await harness.ask("update", {
      key_id: "key_api0000000000000",
      id,
      body: { paused: true, phrase: null },
    });
    expect(patched).toMatchObject({ ok: true, value: { monitor: { status: "paused", phrase: null } } });
    await harness.ask("create", { key_id: "key_api0000000000000", body });
    const third = await harness.ask("create", { key_id: "key_api0000000000000", body });
    expect(third).toMatchObject({ ok: false, status: 409 });
    expect(await harness.ask("delete", { key_id: "key_api0000000000000", id })).toMatchObject({ ok: true });
    expect(await harness.ask("get", { key_id: "key_api0000000000000", id })).toMatchObject({
      ok: false,
      status: 404,
    });
  });
});

describe("a crash", () => {
  it("kill -9 of a replica mid-backfill loses nothing and delivers nothing twice", async () => {
    // The earlier tests' replicas would take the new source over and backfill it at once: only the
    // replica that is killed polls until it dies.
    await harness.stopReplicas();
    const crashing = spawnService(
      "monitors",
      {
        ...process.env,
        RDA_NAMESPACE: harness.namespace,
        NATS_URL: testNatsUrl(),
        REDIS_URL: testRedisUrl(),
        HEALTH_PORT: "0",
        METRICS_PORT: "0",
        LOG_LEVEL: "info",
        MONITOR_MIN_INTERVAL_SECONDS: "1",
        MONITOR_BACKFILL_PAGES_PER_POLL: "1",
      },
      { entry: REPLICA_MAIN, args: [JSON.stringify({ tickMs: 150, leaseMs: 1_500 })] },
    );
    try {
      await crashing.waitForLine(/monitors ready/);
      const { corpus } = harness.simulator;
      const subreddit = corpus.subreddits[2]!.name;
      const created = await harness.ask("create", {
        key_id: "key_crash00000000000",
        body: { kind: "post", subreddit, interval_seconds: 3, backfill_from: "90d" },
      });
      if (!created.ok) throw new Error(created.error);
      const { id, backfill_from } = created.value.monitor;
      await waitFor(
        async () => (await pullAll(harness, "key_crash00000000000", id)).length > 0,
        "the backfill to start",
        30_000,
      );
      const before = await harness.ask("get", { key_id: "key_crash00000000000", id });
      crashing.child.kill("SIGKILL");
      await new Promise((resolve) => crashing.child.once("exit", resolve));
      // One backfill page per poll and a poll every 3 s leave seconds between the first pulled item
      // and the backfill's end, however slow the machine: the crash came mid-backfill: what follows resumes it rather than starting a new one.
      expect(before.ok && before.value.monitor.status).toBe("backfilling");

      const successor = await harness.startReplica();
      await waitFor(
        async () => {
          const answer = await harness.ask("get", { key_id: "key_crash00000000000", id });
          return answer.ok && answer.value.monitor.status === "live";
        },
        "the successor to take the source over once the lease ran out, and finish",
        60_000,
      );
      harness.advance(1800);
      const expected = await harness.listWithPhrase(subreddit, (backfill_from ?? 0) - 1, undefined);
      const delivered = await waitFor(
        async () => {
          const items = await pullAll(harness, "key_crash00000000000", id);
          return items.length >= expected.length ? items : undefined;
        },
        "every item of the window and the half hour after",
        30_000,
      );
      expect(delivered?.map((item) => item.id)).toEqual(expected.map((item) => item.id));
      expectOnceInOrder(delivered ?? []);
      await successor.stop();
    } finally {
      await crashing.stop();
    }
  }, 120_000);
});
