/** Batch mode (docs/api.md#endpoints): ids, one upstream call, no cursor, listing parameters ignored. */
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Row, startHarness } from "./harness.ts";

let harness: Harness;
let postIds: string[];

beforeAll(async () => {
  harness = await startHarness(9, 0.05);
  postIds = harness.sim.probe.posts({}, 120).map((post) => post.id);
});
afterAll(() => harness.close());

describe("adapter-posts batch mode", () => {
  it("fetches 100 posts in exactly one upstream call, using only the first 100 of 120 mixed-form ids", async () => {
    const control = simControl(harness.sim.url);
    const given = postIds.map((id, i) => (i % 2 === 0 ? `t3_${id}` : id.toUpperCase()));
    const before = await control.requestsOn("/api/posts/ids");
    const answer = await harness.posts({ ids: given.join(",") });
    expect(await control.requestsOn("/api/posts/ids")).toBe(before + 1);
    expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
    const rows = answer.data as Row[];
    expect(rows.map((row) => row.id).sort()).toEqual(postIds.slice(0, 100).sort());
  });

  it("ignores subreddit, sort, q and bounds in batch mode but still applies fields", async () => {
    const answer = await harness.posts({
      ids: postIds.slice(0, 3).join(","),
      subreddit: "no_such_sub",
      sort: "asc",
      q: "zzzz never matches",
      after: 1_200_000_000,
      fields: "id,title,permalink",
    });
    const rows = answer.data as Row[];
    expect(rows.map((row) => row.id).sort()).toEqual(postIds.slice(0, 3).sort());
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(["id", "permalink", "title"]);
  });

  it("fails the whole batch with bad_request when one id is malformed, with no upstream call", async () => {
    const control = simControl(harness.sim.url);
    const before = (await control.stats()).total;
    const answer = await harness.posts({ ids: `${postIds[0]},not-an-id!,${postIds[1]}` });
    expect(answer.meta.outcome).toBe("bad_request");
    expect(answer.meta.outcome === "bad_request" && answer.meta.message).toContain("ids");
    expect((await control.stats()).total).toBe(before);
  });

  it("fetches comments by id with or without t1_, full objects with link_id and parent_id", async () => {
    const listed = (await harness.comments({ author: harness.sim.probe.knownUser().author, limit: 5 }))
      .data as Row[];
    const ids = listed.map((row, i) => (i % 2 ? `t1_${row.id}` : row.id));
    const answer = await harness.comments({ ids: ids.join(",") });
    const rows = answer.data as Row[];
    expect(rows.map((row) => row.id).sort()).toEqual(listed.map((row) => row.id).sort());
    expect(rows[0]!.link_id).toMatch(/^t3_/);
    expect(rows[0]!.parent_id).toMatch(/^t[13]_/);
  });

  it("answers an empty list for ids the upstream does not know", async () => {
    const answer = await harness.posts({ ids: "zzzzzzz1,zzzzzzz2" });
    expect(answer).toEqual({
      meta: { outcome: "ok", cursor: null, has_more: false },
      data: [],
      fetchedAtMs: expect.any(Number),
      // Fetched for this request, and not to be served again.
      fetch: { maxAgeS: undefined, source: "upstream" },
    });
  });
});
