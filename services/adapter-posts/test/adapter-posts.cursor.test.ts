/**
 * The cursor walks a whole listing without losing or repeating a row, even where rows share a
 * created_utc second, whether the upstream's bounds include their boundary second or not, and with
 * old epochs sent as strings and the odd transient empty page (README: "The cursor").
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimQuirks } from "../../upstream-sim/src/index.ts";
import { type Harness, type Row, startHarness } from "./harness.ts";

let harness: Harness;
/** A fixed upper bound, so posts arriving during the test cannot change the expected set. */
let upTo: number;

const READINGS: readonly [string, Partial<SimQuirks>][] = [
  ["exclusive bounds", {}],
  [
    "inclusive bounds, string epochs, transient empty pages",
    {
      afterInclusive: true,
      beforeInclusive: true,
      // Inside the corpus, which is laid from 180 days before now.
      stringEpochsBefore: Math.floor(Date.now() / 1000) - 90 * 86_400,
      transientEmptyPageRate: 0.05,
    },
  ],
];

interface Walk {
  readonly ids: string[];
  readonly seconds: number[];
  readonly pages: number;
  readonly largestPage: number;
}

async function walk(
  kind: "posts" | "comments",
  filter: object,
  sort: "asc" | "desc",
  limit: number,
): Promise<Walk> {
  const result: Walk = { ids: [], seconds: [], pages: 0, largestPage: 0 };
  let cursor: number | undefined;
  for (;;) {
    const bound = sort === "desc" ? { before: cursor ?? upTo } : { after: cursor, before: upTo };
    const answer = await harness[kind]({ ...filter, ...bound, sort, limit, fields: "id" });
    expect(answer.meta.outcome).toBe("ok");
    const rows = answer.data as Row[];
    result.ids.push(...rows.map((row) => row.id));
    Object.assign(result, {
      pages: result.pages + 1,
      largestPage: Math.max(result.largestPage, rows.length),
    });
    if (answer.meta.outcome !== "ok" || !answer.meta.has_more) return result;
    expect(answer.meta.cursor).not.toBe(cursor);
    cursor = answer.meta.cursor ?? undefined;
  }
}

function postsOf(subreddit: string): string[] {
  return harness.sim.probe
    .posts({ subreddit }, 1_000_000)
    .filter((post) => post.created_utc < upTo)
    .map((post) => post.id);
}

/** The author's comments as the corpus holds them (ids base36, as served). */
function commentsOf(author: string): string[] {
  const { index, comments, anchor } = harness.sim.corpus;
  const a = index.authorByName.get(author.toLowerCase())!;
  const ids: string[] = [];
  for (let i = index.commentsByAuthor.offsets[a]!; i < index.commentsByAuthor.offsets[a + 1]!; i++) {
    const c = index.commentsByAuthor.items[i]!;
    if (anchor + comments.created[c]! < upTo) ids.push(comments.idNum[c]!.toString(36));
  }
  return ids;
}

/** The subreddit whose posts share a second most often. */
function busiestSecondSubreddit(): { name: string; sameSecond: number } {
  let best = { name: "", sameSecond: 0 };
  for (const name of harness.sim.probe.subredditNames()) {
    const perSecond = new Map<number, number>();
    for (const post of harness.sim.probe.posts({ subreddit: name }, 1_000_000)) {
      perSecond.set(post.created_utc, (perSecond.get(post.created_utc) ?? 0) + 1);
    }
    const sameSecond = Math.max(0, ...perSecond.values());
    if (sameSecond > best.sameSecond) best = { name, sameSecond };
  }
  return best;
}

describe.each(READINGS)("adapter-posts cursor, %s", (_reading, quirks) => {
  beforeAll(async () => {
    harness = await startHarness(7, 0.1, undefined, quirks);
    upTo = harness.sim.probe.now - 1;
  });
  afterAll(() => harness.close());

  it("walks a subreddit with many same-second posts, every post exactly once, at limits 1, 3 and 25 in both orders", async () => {
    const { name, sameSecond } = busiestSecondSubreddit();
    expect(sameSecond).toBeGreaterThanOrEqual(4);
    const expected = postsOf(name).sort();
    for (const sort of ["desc", "asc"] as const) {
      for (const limit of [1, 3, 25]) {
        const result = await walk("posts", { subreddit: name }, sort, limit);
        expect([...result.ids].sort(), `${sort} limit ${limit}`).toEqual(expected);
        if (limit < sameSecond) expect(result.largestPage).toBeGreaterThan(limit);
      }
    }
  });

  it("walks the largest subreddit at limit 100 in both orders without losing or repeating a post", async () => {
    const names = harness.sim.probe.subredditNames();
    const largest = names.reduce((a, b) => (postsOf(a).length >= postsOf(b).length ? a : b));
    const expected = postsOf(largest).sort();
    expect(expected.length).toBeGreaterThan(100);
    for (const sort of ["desc", "asc"] as const) {
      const result = await walk("posts", { subreddit: largest }, sort, 100);
      expect([...result.ids].sort()).toEqual(expected);
      expect(result.pages).toBeGreaterThan(1);
    }
  });

  it("walks an author's comments with the cursor, every comment exactly once", async () => {
    const author = harness.sim.probe.knownUser().author;
    const expected = commentsOf(author).sort();
    expect(expected.length).toBeGreaterThan(25);
    for (const sort of ["desc", "asc"] as const) {
      const result = await walk("comments", { author }, sort, 25);
      expect([...result.ids].sort()).toEqual(expected);
    }
  });

  it("answers an empty page with cursor null and has_more false", async () => {
    const answer = await harness.posts({ subreddit: "no_such_sub_here", limit: 5 });
    expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
    expect(answer.data).toEqual([]);
  });
});
