/**
 * /api/{posts,comments}/search/aggregate (docs/upstream.md#aggregates): the counts per bucket, per
 * author or per community of exactly the items the same search returns, in the upstream's forms.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANCHOR, startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;

beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

type Bucket = { created_utc: string; count: string };
type Item = { id: string; created_utc: number; author: string };

const DAY = 86_400;

/** Every item of a search window, oldest first, paged by the exclusive `after` with a 1 s step back. */
async function allItems(path: string, query: string): Promise<Item[]> {
  const seen = new Map<string, Item>();
  let after = Number(new URLSearchParams(query).get("after"));
  for (;;) {
    const page = (
      await sim.get(`${path}?${query}&sort=asc&limit=100&after=${after}`.replace(/after=\d+&/, ""))
    ).data as Item[];
    for (const item of page) seen.set(item.id, item);
    if (page.length < 100) return [...seen.values()];
    after = page.at(-1)!.created_utc - 1;
  }
}

describe("GET /api/posts/search/aggregate", () => {
  it("counts per day exactly the posts the search returns, as ISO dates and counts in text, oldest first", async () => {
    // The test simulator's clock stands ten minutes after its anchor.
    const now = ANCHOR + 600;
    const window = `subreddit=typescript&after=${now - 40 * DAY}&before=${now}`;
    const buckets = (
      await sim.get(`/api/posts/search/aggregate?aggregate=created_utc&frequency=day&${window}`)
    ).data as Bucket[];
    const items = await allItems("/api/posts/search", window);
    const expected = new Map<string, number>();
    for (const item of items) {
      const day = new Date(Math.floor(item.created_utc / DAY) * DAY * 1000).toISOString();
      expected.set(day, (expected.get(day) ?? 0) + 1);
    }
    expect(items.length).toBeGreaterThan(5);
    expect(buckets.every((bucket) => typeof bucket.count === "string")).toBe(true);
    expect(buckets.map((bucket) => [bucket.created_utc, Number(bucket.count)])).toEqual([...expected]);
    const starts = buckets.map((bucket) => Date.parse(bucket.created_utc));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("starts weeks on Monday and applies every search filter", async () => {
    const buckets = (
      await sim.get(
        "/api/posts/search/aggregate?aggregate=created_utc&frequency=week&subreddit=MorbidReality&over_18=false",
      )
    ).data as Bucket[];
    expect(buckets).toEqual([]);
    const weeks = (
      await sim.get(
        "/api/posts/search/aggregate?aggregate=created_utc&frequency=week&subreddit=MorbidReality",
      )
    ).data as Bucket[];
    expect(weeks.length).toBeGreaterThan(3);
    expect(weeks.every((bucket) => new Date(bucket.created_utc).getUTCDay() === 1)).toBe(true);
  });

  it("aggregates by author, largest first, with limit and min_count", async () => {
    const rows = (
      await sim.get("/api/comments/search/aggregate?aggregate=author&subreddit=Cooking&limit=5&min_count=2")
    ).data as { author: string; count: string }[];
    expect(rows).toHaveLength(5);
    const counts = rows.map((row) => Number(row.count));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts.every((n) => n >= 2)).toBe(true);
  });

  it("refuses a missing aggregate or frequency, and an unknown one, with the upstream's error body", async () => {
    for (const query of [
      "subreddit=typescript",
      "aggregate=created_utc&subreddit=typescript",
      "aggregate=score",
      "aggregate=created_utc&frequency=fortnight",
    ]) {
      const answer = await sim.get(`/api/posts/search/aggregate?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ data: null, error: expect.any(String) });
    }
  });
});
