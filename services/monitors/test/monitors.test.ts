/**
 * The monitors service, black-box over NATS against the upstream simulator: a backfill then live
 * delivers every match of the window once and in order; a shared source costs one poll per interval
 * however many monitors watch it; a replica's restart loses nothing; another key sees nothing.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Item, pullAll, startHarness } from "./harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

const DAY = 86_400;
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
    const replica = await harness.startReplica();
    const { subreddit, phrase } = await pickSourceAndPhrase(harness);
    const from = harness.simNow() - 30 * DAY;
    const created = await harness.ask("create", {
      key_id: "key_backfill",
      body: { kind: "post", subreddit, phrase, interval_seconds: 2, backfill_from: "30d" },
    });
    if (!created.ok) throw new Error(created.error);
    const { monitor, backfill_estimate } = created.value;
    expect(monitor.status).toBe("backfilling");
    expect(backfill_estimate.upstream_pages).toBeGreaterThanOrEqual(1);
    expect(backfill_estimate.max_credits).toBe(backfill_estimate.upstream_pages);

    const window = await harness.listWithPhrase(subreddit, from - 1, phrase);
    expect(window.length).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const answer = await harness.ask("get", { key_id: "key_backfill", id: monitor.id });
        return answer.ok && answer.value.monitor.status === "live";
      },
      "the backfill to finish",
      60_000,
    );
    const backfilled = await pullAll(harness, "key_backfill", monitor.id);
    expect(backfilled.map((item) => item.id)).toEqual(window.map((item) => item.id));

    // Posts created in the simulated hours to come appear at once: they arrive within two intervals.
    harness.advance(LATER);
    const appearedAt = Date.now();
    await waitFor(
      async () => (await pullAll(harness, "key_backfill", monitor.id)).length > backfilled.length,
      "the new matches to arrive",
      30_000,
    );
    expect(Date.now() - appearedAt).toBeLessThan(2 * 2_000 + 2_000);
    const everything = await harness.listWithPhrase(subreddit, from - 1, phrase);
    expect(everything.length).toBeGreaterThan(window.length);
    const delivered = await pullAll(harness, "key_backfill", monitor.id);
    expect(delivered.map((item) => item.id)).toEqual(everything.map((item) => item.id));
    expectOnceInOrder(delivered);
    await replica.stop();
  }, 120_000);
});
