/**
 * A backfill's estimate holds (docs/api.md#monitors): made from the archive's count as an export's
 * quote is, it is within 25 % of the upstream pages the backfill really takes (paged here exactly as
 * the backfill pages: oldest first, 100 items a page) and of the pages pulling its items costs, and
 * it says how it was made.
 */
import { ADAPTER_PROGRESS, decodeAdapterReply } from "@rda/contracts";
import { requestWithProgress } from "@rda/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
  await harness.startReplica();
}, 60_000);
afterAll(async () => {
  await harness?.stop();
});

/** The upstream pages of a source's comments since `after`, paged as the backfill pages them. */
async function pagesSince(subreddit: string, after: number): Promise<{ pages: number; items: number }> {
  let cursor = after;
  let pages = 0;
  let items = 0;
  for (;;) {
    pages += 1;
    const params = { subreddit, after: cursor, sort: "asc", limit: 100, fields: "id,created_utc" };
    const payload = JSON.stringify({ request_id: `oracle-estimate-${pages}`, params });
    const raw = await requestWithProgress(harness.nats, harness.subjects.adapter.listComments, payload, {
      timeoutMs: 15_000,
      silenceMs: ADAPTER_PROGRESS.silenceMs,
    });
    if (!raw.ok) throw new Error(`oracle page: ${raw.error.kind}`);
    const frame = decodeAdapterReply(raw.value);
    if (!frame.ok || frame.value.meta.outcome !== "ok") throw new Error("oracle page failed");
    items += (JSON.parse(new TextDecoder().decode(frame.value.data)) as unknown[]).length;
    const { cursor: next, has_more } = frame.value.meta;
    if (!has_more || next === null || next === undefined) return { pages, items };
    cursor = next;
  }
}

describe("a backfill's estimate", () => {
  for (const [subreddit, from] of [
    ["AskHistorians", "365d"],
    ["dataisbeautiful", "60d"],
  ] as const) {
    it(`is within 25 % of the pages a backfill of ${subreddit}'s comments from ${from} really takes, and says how it was made`, async () => {
      const answer = await harness.ask("estimate", {
        key_id: "key_estimate00000000",
        body: { kind: "comment", subreddit, backfill_from: from },
      });
      if (!answer.ok) throw new Error(answer.error);
      const estimate = answer.value.backfill_estimate as {
        upstream_pages: number;
        max_credits: number;
        estimated_items: number;
        method: string;
      };
      const days = Number(from.slice(0, -1));
      const real = await pagesSince(subreddit, harness.simNow() - days * 86_400 - 1);
      expect(estimate.method).toMatch(/counted by the archive/);
      expect(Math.abs(estimate.upstream_pages - real.pages) / real.pages).toBeLessThanOrEqual(0.25);
      // Pulling pays one credit per page of 100 items.
      const pulled = Math.floor(real.items / 100) + 1;
      expect(Math.abs(estimate.max_credits - pulled) / pulled).toBeLessThanOrEqual(0.25);
      expect(Math.abs(estimate.estimated_items - real.items) / real.items).toBeLessThanOrEqual(0.25);
    }, 180_000);
  }
});
