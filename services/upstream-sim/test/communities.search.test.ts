import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;

beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

type Sub = { display_name: string; subscribers: number; created_utc: number; over18: boolean };

describe("GET /api/subreddits/search", () => {
  const search = (query: string) => sim.get(`/api/subreddits/search?${query}`);

  it("returns 25 subreddits by subscribers, largest first, by default", async () => {
    const rows = (await search("")).data as Sub[];
    expect(rows).toHaveLength(25);
    expect(rows.every((row, i) => i === 0 || rows[i - 1]!.subscribers >= row.subscribers)).toBe(true);
  });

  it("sorts by name or creation date on request", async () => {
    const byName = ((await search("sort_type=subreddit&sort=asc&limit=100")).data as Sub[]).map((s) =>
      s.display_name.toLowerCase(),
    );
    expect(byName).toEqual([...byName].sort());
    expect(byName).toHaveLength(40);
    const byAge = ((await search("sort_type=created_utc&sort=asc&limit=100")).data as Sub[]).map(
      (s) => s.created_utc,
    );
    expect(byAge).toEqual([...byAge].sort((a, b) => a - b));
  });

  it("finds one subreddit by exact name, in any case and with an r/ prefix", async () => {
    const rows = (await search("subreddit=r/TYPESCRIPT")).data as Sub[];
    expect(rows.map((row) => row.display_name)).toEqual(["typescript"]);
    expect((await search("subreddit=typescrip")).data).toEqual([]);
  });

  it("finds subreddits by name prefix", async () => {
    const rows = (await search("subreddit_prefix=ask&limit=100")).data as Sub[];
    expect(rows.map((row) => row.display_name).sort()).toEqual(["AskHistorians", "AskReddit"]);
  });

  it("filters by subscribers, over18 and creation date (exclusive)", async () => {
    const all = (await search("limit=100")).data as Sub[];
    const middle = all[20]!;
    const min = (await search(`min_subscribers=${middle.subscribers}&limit=100`)).data as Sub[];
    expect(min.every((row) => row.subscribers >= middle.subscribers)).toBe(true);
    expect(min).toHaveLength(21);
    const max = (await search(`max_subscribers=${middle.subscribers}&limit=100`)).data as Sub[];
    expect(max.every((row) => row.subscribers <= middle.subscribers)).toBe(true);
    const nsfw = (await search("over18=true&limit=100")).data as Sub[];
    expect(nsfw.map((row) => row.display_name).sort()).toEqual(["FiftyFifty", "MorbidReality"]);
    const after = (await search(`after=${middle.created_utc}&limit=100`)).data as Sub[];
    expect(after.every((row) => row.created_utc > middle.created_utc)).toBe(true);
  });

  it("projects the subreddit fields, _meta included", async () => {
    const rows = (await search("limit=3&fields=display_name,subscribers,public_description,_meta")).data;
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(["display_name", "subscribers", "public_description", "_meta"]);
      expect(row._meta).toEqual({
        num_posts: expect.any(Number),
        num_comments: expect.any(Number),
        earliest_post_at: expect.any(Number),
        earliest_comment_at: expect.any(Number),
      });
    }
    expect((await search("fields=display_name,name")).status).toBe(400);
  });

  it("serves the short public_description apart from the long markdown description", async () => {
    const [row] = (await search("subreddit=Cooking")).data;
    expect(row.public_description.length).toBeLessThan(200);
    expect(row.description).toContain("## Rules");
    expect(row).toMatchObject({ id: expect.stringMatching(/^[0-9a-z]+$/), over18: false, title: "Cooking" });
  });

  it.each(["limit=0", "limit=1001", "sort_type=name", "min_subscribers=lots", "over18=perhaps"])(
    "answers 400 for %s",
    async (query) => {
      const answer = await search(query);
      expect(answer.status).toBe(400);
      expect(answer.body.data).toBeNull();
    },
  );
});

describe("GET /api/subreddits/rules", () => {
  const rules = (query: string) => sim.get(`/api/subreddits/rules?${query}`);

  it("returns the rules of each known subreddit, in request order, skipping unknown names", async () => {
    const answer = await rules("subreddits=cooking,nope_nope,r/TypeScript");
    expect(answer.data.map((entry: { subreddit: string }) => entry.subreddit)).toEqual([
      "Cooking",
      "typescript",
    ]);
    for (const entry of answer.data) {
      entry.rules.forEach((rule: Record<string, unknown>, i: number) => {
        expect(rule).toEqual({
          kind: expect.stringMatching(/^(link|comment|all)$/),
          priority: i,
          short_name: expect.any(String),
          description: expect.any(String),
          violation_reason: expect.any(String),
          created_utc: expect.any(Number),
        });
      });
    }
  });

  it("answers 400 without subreddits or with more than 1000", async () => {
    expect((await rules("")).status).toBe(400);
    const names = Array.from({ length: 1001 }, (_, i) => `s${i}`).join(",");
    const answer = await rules(`subreddits=${names}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ data: null, error: expect.stringContaining("1000") });
  });
});

describe("GET /api/users/search", () => {
  const users = (query: string) => sim.get(`/api/users/search?${query}`);

  it("returns one record for an exact author, in any case and with a u/ prefix", async () => {
    const known = sim.probe.knownUser();
    const answer = await users(`author=u/${known.author.toUpperCase()}`);
    expect(answer.data).toEqual([known]);
    expect(Object.keys(answer.data[0]._meta).sort()).toEqual(
      [
        "comment_karma",
        "comment_stats_updated_at",
        "earliest_comment_at",
        "earliest_post_at",
        "last_comment_at",
        "last_post_at",
        "num_comments",
        "num_posts",
        "post_karma",
        "post_stats_updated_at",
        "total_karma",
      ].sort(),
    );
  });

  it("returns nothing for an author missing from the index, who still has posts", async () => {
    const missing = sim.probe.missingUser();
    expect((await users(`author=${missing}`)).body).toEqual({ data: [] });
    expect((await sim.get(`/api/posts/search?author=${missing}`)).data.length).toBeGreaterThan(0);
  });

  it("counts a user's posts consistently with post search up to post_stats_updated_at", async () => {
    const known = sim.probe.knownUser();
    const before = known._meta.post_stats_updated_at + 1;
    const posts = (await sim.get(`/api/posts/search?author=${known.author}&before=${before}&limit=100`)).data;
    expect(posts.length).toBe(Math.min(100, known._meta.num_posts));
    if (known._meta.num_posts <= 100) expect(posts.at(-1).created_utc).toBe(known._meta.earliest_post_at);
    expect(posts[0].created_utc).toBe(known._meta.last_post_at);
  });

  it("sorts by total_karma, largest first, by default", async () => {
    const rows = (await users("limit=50")).data as { _meta: { total_karma: number } }[];
    expect(rows).toHaveLength(50);
    expect(rows.every((row, i) => i === 0 || rows[i - 1]!._meta.total_karma >= row._meta.total_karma)).toBe(
      true,
    );
  });

  it("filters by name prefix, activity and karma", async () => {
    const byPrefix = (await users("author_prefix=throwaway&sort_type=author&sort=asc&limit=1000")).data as {
      author: string;
    }[];
    expect(byPrefix.length).toBeGreaterThan(0);
    expect(byPrefix.every((row) => row.author.startsWith("throwaway"))).toBe(true);
    const names = byPrefix.map((row) => row.author.toLowerCase());
    expect(names).toEqual([...names].sort());
    const busy = (await users("min_num_posts=5&min_num_comments=20&min_karma=100&limit=1000")).data;
    for (const row of busy) {
      expect(row._meta.num_posts).toBeGreaterThanOrEqual(5);
      expect(row._meta.num_comments).toBeGreaterThanOrEqual(20);
      expect(row._meta.total_karma).toBeGreaterThanOrEqual(100);
    }
    const since = sim.clock.seconds - 4 * 86_400;
    const active = (await users(`active_since=${since}&limit=1000`)).data;
    for (const row of active)
      expect(Math.max(row._meta.last_post_at ?? 0, row._meta.last_comment_at ?? 0)).toBeGreaterThanOrEqual(
        since,
      );
  });

  it.each(["limit=1001", "sort_type=karma", "min_karma=x", "active_since=1w"])(
    "answers 400 for %s",
    async (query) => {
      const answer = await users(query);
      expect(answer.status).toBe(400);
      expect(answer.body.data).toBeNull();
    },
  );
});
