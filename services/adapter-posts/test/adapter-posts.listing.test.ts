/** Listing mode of adapter.posts.list and adapter.comments.list: defaults, q, fields, bad input. */
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Row, startHarness } from "./harness.ts";

let harness: Harness;
let subreddit: string;

beforeAll(async () => {
  harness = await startHarness();
  const names = harness.sim.probe.subredditNames();
  subreddit = names.find((name) => harness.sim.probe.posts({ subreddit: name }, 60).length >= 60)!;
});
afterAll(() => harness.close());

/** A word of at least 5 letters from the first title, to search for. */
function wordOf(text: string): string {
  return text.match(/\p{L}{5,}/u)![0]!.toLowerCase();
}

describe("adapter-posts listing", () => {
  it("pages newest first by default with up to 25 full posts, a cursor from the last row and has_more", async () => {
    const answer = await harness.posts({ subreddit });
    const rows = answer.data as Row[];
    // 25 asked; rows sharing the last row's second are held back for the next page (README).
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.length).toBeLessThanOrEqual(25);
    expect(answer.meta).toEqual({ outcome: "ok", cursor: rows.at(-1)!.created_utc, has_more: true });
    const seconds = rows.map((row) => row.created_utc);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
    expect(rows[0]!.permalink).toMatch(/^\/r\/\w+\/comments\//);
    expect(rows[0]!.url).toMatch(/^https?:\/\//);
    expect(Object.keys(rows[0]!).length).toBeGreaterThan(30);
  });

  it("filters a page by q but keeps the raw page's cursor and has_more, returning only the asked fields", async () => {
    const raw = await harness.posts({ subreddit, limit: 50 });
    const rawRows = raw.data as Row[];
    const word = wordOf(String(rawRows[0]!.title));
    const filtered = await harness.posts({ subreddit, limit: 50, q: word.toUpperCase(), fields: "id,score" });
    const rows = filtered.data as Row[];
    expect(filtered.meta).toEqual(raw.meta);
    expect(rows.map((row) => row.id)).toContain(rawRows[0]!.id);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["id", "score"]);
      const source = rawRows.find((candidate) => candidate.id === row.id)!;
      expect(`${source.title} ${source.selftext}`.toLowerCase()).toContain(word.replace(/(e?s|y)$/, ""));
    }
    expect(rows.length).toBeLessThan(rawRows.length);
  });

  it("returns a field the upstream cannot project (permalink) by fetching whole posts and trimming them", async () => {
    const answer = await harness.posts({ subreddit, limit: 5, fields: "permalink,id" });
    const rows = answer.data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Object.keys(row)).toEqual(["permalink", "id"]);
    expect(answer.meta).toMatchObject({ outcome: "ok", has_more: true });
  });

  it("filters comments by q over the body only, with fields that leave the body out", async () => {
    const raw = await harness.comments({ subreddit, limit: 40, sort: "asc" });
    const rawRows = raw.data as Row[];
    const word = wordOf(String(rawRows.find((row) => /\p{L}{5,}/u.test(String(row.body)))!.body));
    const filtered = await harness.comments({ subreddit, limit: 40, sort: "asc", q: word, fields: "id" });
    expect(filtered.meta).toEqual(raw.meta);
    const rows = filtered.data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(["id"]);
      const source = rawRows.find((candidate) => candidate.id === row.id)!;
      expect(String(source.body).toLowerCase()).toContain(word.replace(/(e?s|y)$/, ""));
    }
  });

  it("honours after and before as exclusive bounds in ascending order", async () => {
    const page = (await harness.posts({ subreddit, limit: 10, sort: "asc" })).data as Row[];
    const after = page[2]!.created_utc;
    const before = page[8]!.created_utc;
    const rows = (await harness.posts({ subreddit, sort: "asc", after, before })).data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.created_utc).toBeGreaterThan(after);
      expect(row.created_utc).toBeLessThan(before);
    }
  });

  it.each([
    [{}, "subreddit"],
    [{ subreddit: "bad name!" }, "subreddit"],
    [{ subreddit: "pics", limit: 0 }, "limit"],
    [{ subreddit: "pics", limit: 2.5 }, "limit"],
    [{ subreddit: "pics", sort: "top" }, "sort"],
    [{ subreddit: "pics", q: "  " }, "q"],
    [{ subreddit: "pics", after: "yesterday-ish" }, "after"],
    [{ subreddit: "pics", fields: "id,nonsense" }, "fields"],
  ])("answers bad_request naming the parameter for %j, before any upstream call", async (params, name) => {
    const before = (await simControl(harness.sim.url).stats()).total;
    const answer = await harness.posts(params);
    expect(answer.meta.outcome).toBe("bad_request");
    expect(answer.meta.outcome === "bad_request" && answer.meta.message).toContain(name);
    expect((await simControl(harness.sim.url).stats()).total).toBe(before);
  });
});
