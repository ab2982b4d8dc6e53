/**
 * A PATCH that lands while the poller is paging a monitor's backfill, black-box over NATS against
 * the upstream simulator: the caller's change stays (no old field comes back when the poller writes
 * its progress), the poller's progress stays (the backfill ends and turns live), and every item of
 * the window is delivered once, in order.
 */

import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, pullAll, startHarness } from "./harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.stop();
});

describe("a PATCH during a poll", () => {
  it("keeps the caller's fields and the poller's progress, and delivers every item once, in order", async () => {
    // One page per poll and a short tick: the backfill takes many polls, each writing the monitor.
    await harness.startReplica({ backfillPagesPerPoll: 1, tickMs: 20 });
    const subreddit = harness.simulator.corpus.subreddits[0]!.name;
    const created = await harness.ask("create", {
      key_id: "key_race000000000000",
      body: { kind: "post", subreddit, interval_seconds: 60, backfill_from: "60d" },
    });
    if (!created.ok) throw new Error(created.error);
    const { id, backfill_from } = created.value.monitor;
    let patches = 0;
    for (;;) {
      patches += 1;
      const interval = 60 + (patches % 50);
      const patched = await harness.ask("update", {
        key_id: "key_race000000000000",
        id,
        body: { interval_seconds: interval },
      });
      if (!patched.ok) throw new Error(patched.error);
      // The poller's next write of its progress: made from the record it read before the PATCH, it
      // would bring the old interval back.
      const pagesDone = patched.value.monitor.backfill_progress?.pages_done ?? 0;
      const written = await waitFor(async () => {
        const read = await harness.ask("get", { key_id: "key_race000000000000", id });
        if (!read.ok) throw new Error(read.error);
        const { monitor } = read.value;
        const progressed = (monitor.backfill_progress?.pages_done ?? 0) > pagesDone;
        return progressed || monitor.status === "live" ? monitor : undefined;
      }, "the poller's next write after the PATCH");
      expect(written?.interval_seconds).toBe(interval);
      if (patched.value.monitor.status === "live" || patches >= 2_000) break;
    }
    const last = 60 + (patches % 50);
    // The poller wrote its phase many times meanwhile; none of its writes brought an old interval back.
    const settled = await waitFor(async () => {
      const answer = await harness.ask("get", { key_id: "key_race000000000000", id });
      return answer.ok && answer.value.monitor.status === "live" ? answer.value.monitor : undefined;
    }, "the backfill's end");
    expect(settled?.interval_seconds).toBe(last);
    expect(patches).toBeGreaterThan(1);

    const expected = await harness.listWithPhrase(subreddit, (backfill_from ?? 0) - 1, undefined);
    const delivered = await pullAll(harness, "key_race000000000000", id);
    const window = expected.filter((item) => item.created_utc <= (delivered.at(-1)?.created_utc ?? 0));
    expect(delivered.map((item) => item.id)).toEqual(window.map((item) => item.id));
  }, 90_000);
});
