/**
 * Old items and flaky pages (docs/upstream.md#assumptions): epochs sent as numeric strings come back as
 * integers in both modes, and a transient empty page does not end a listing.
 */
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Row, startHarness } from "./harness.ts";

let harness: Harness;
/** Every item older than this is sent with string epochs; the corpus reaches 180 days back. */
const cutoff = Math.floor(Date.now() / 1000) - 30 * 86_400;

beforeAll(async () => {
  harness = await startHarness(9, 0.05, undefined, { stringEpochsBefore: cutoff, transientEmptyPageRate: 1 });
});
afterAll(() => harness.close());

const isIntegerTime = (row: Row) =>
  Number.isInteger(row.created_utc) && Number.isInteger(row.created) && Number.isInteger(row.retrieved_on);

describe("adapter-posts with old items and transient empty pages", () => {
  it("answers a listing of old posts with integer times, past the transient empty first answer", async () => {
    const control = simControl(harness.sim.url);
    const sent = await control.requestsOn("/api/posts/search");
    const subreddit = harness.sim.probe.subredditNames()[0];
    const answer = await harness.posts({ subreddit, before: cutoff, limit: 3, sort: "desc" });
    expect(answer.meta).toMatchObject({ outcome: "ok", has_more: true });
    const rows = answer.data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every(isIntegerTime)).toBe(true);
    expect(rows.every((row) => row.created_utc < cutoff)).toBe(true);
    expect(answer.meta.outcome === "ok" && answer.meta.cursor).toBe(rows.at(-1)!.created_utc);
    // The empty first answer, then the real page (and at most a whole-second fetch, itself asked twice).
    expect(await control.requestsOn("/api/posts/search")).toBeGreaterThanOrEqual(sent + 2);
  });

  it("answers a batch of old comments with integer times, and a projection with them too", async () => {
    const subreddit = harness.sim.probe.subredditNames()[1];
    const page = await harness.comments({ subreddit, before: cutoff, limit: 5, fields: "id" });
    const ids = (page.data as Row[]).map((row) => row.id);
    expect(ids.length).toBeGreaterThan(0);
    const whole = await harness.comments({ ids: ids.join(",") });
    expect((whole.data as Row[]).map((row) => row.id).sort()).toEqual([...ids].sort());
    expect((whole.data as Row[]).every(isIntegerTime)).toBe(true);
    const projected = await harness.comments({ ids: ids.join(","), fields: "id,created_utc" });
    for (const row of projected.data as Row[]) expect(Number.isInteger(row.created_utc)).toBe(true);
  });

  it("ends a listing that is really empty after asking once more", async () => {
    const control = simControl(harness.sim.url);
    const sent = await control.requestsOn("/api/posts/search");
    const answer = await harness.posts({ subreddit: "no_such_sub_here", limit: 5 });
    expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
    expect(await control.requestsOn("/api/posts/search")).toBe(sent + 2);
  });
});
