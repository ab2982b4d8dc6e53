/**
 * Following a source whose archive ingests some items late, after newer ones: their `created_utc` is
 * older than the newest second already seen, so reading on from there misses them. The look-back
 * sweep reads the newest page again and delivers them, late but once; nothing is lost.
 */
import { Registry } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, pullAll, startHarness } from "./harness.ts";

/** How late the simulated archive ingests half of the items. */
const LATE_SECONDS = 6 * 3600;
/** Simulated time let pass at once: the posts of these days appear, the late ones not yet. */
const LATER = 2 * 86_400;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ lateIngestShare: 0.5, lateIngestSeconds: LATE_SECONDS });
});

afterAll(async () => {
  await harness?.stop();
});

/**
 * The community with the most posts in the days to come whose posts of the last LATE_SECONDS fit in
 * one page: the sweep reads one page, so what it can bring back is bounded by that page.
 */
function sourceWithinOnePage(from: number, until: number): string {
  const { corpus } = harness.simulator;
  const total = new Map<number, number>();
  const lastHours = new Map<number, number>();
  for (let post = 0; post < corpus.posts.count; post += 1) {
    const created = corpus.anchor + (corpus.posts.created[post] as number);
    if (created <= from || created > until) continue;
    const sub = corpus.posts.sub[post] as number;
    total.set(sub, (total.get(sub) ?? 0) + 1);
    if (created > until - LATE_SECONDS) lastHours.set(sub, (lastHours.get(sub) ?? 0) + 1);
  }
  const [best] = [...total.entries()]
    .filter(([sub]) => (lastHours.get(sub) ?? 0) >= 4 && (lastHours.get(sub) ?? 0) <= 90)
    .sort((a, b) => b[1] - a[1]);
  if (best === undefined) throw new Error("no community fits the test");
  return corpus.subreddits[best[0]]!.name;
}

it("delivers items the archive ingested after newer ones, once each, so nothing is lost", async () => {
  const registry = new Registry();
  await harness.startReplica({ lookbackEveryMs: 1 }, registry);
  const from = harness.simNow();
  const subreddit = sourceWithinOnePage(from, from + LATER);
  const created = await harness.ask("create", {
    key_id: "key_late000000000000",
    body: { kind: "post", subreddit, interval_seconds: 1 },
  });
  if (!created.ok) throw new Error(created.error);
  const { id } = created.value.monitor;
  await waitFor(
    async () => {
      const answer = await harness.ask("get", { key_id: "key_late000000000000", id });
      return answer.ok && answer.value.monitor.status === "live";
    },
    "the monitor to follow",
    30_000,
  );

  // The posts of two days appear, except the late half of the last six hours; then those too.
  harness.advance(LATER);
  const seenBeforeLate = await harness.listWithPhrase(subreddit, from, undefined);
  await waitFor(
    async () => (await pullAll(harness, "key_late000000000000", id)).length >= seenBeforeLate.length,
    "the posts on time",
    30_000,
  );
  harness.advance(LATE_SECONDS + 60);
  const everything = await harness.listWithPhrase(subreddit, from, undefined);
  expect(everything.length).toBeGreaterThan(seenBeforeLate.length);
  const wanted = new Set(everything.map((item) => item.id));
  const held = await waitFor(
    async () => {
      const items = await pullAll(harness, "key_late000000000000", id);
      return [...wanted].every((wantedId) => items.some((item) => item.id === wantedId)) ? items : undefined;
    },
    "the late posts",
    30_000,
  );
  const ids = held!.map((item) => item.id);
  expect(new Set(ids).size).toBe(ids.length);
  const late = await registry.getSingleMetric("monitors_late_items_total")!.get();
  // Most of them older than the newest post seen: only the sweep could bring those.
  expect(late.values[0]!.value).toBeGreaterThan(0);
}, 120_000);
