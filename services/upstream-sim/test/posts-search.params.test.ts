import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdTimes, isSorted, startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;
let sub: string;

beforeAll(async () => {
  sim = await startTestSim();
  sub = sim.probe.subredditNames()[1]!;
});
afterAll(() => sim.close());

const search = (query: string) => sim.get(`/api/posts/search?${query}`);

describe("GET /api/posts/search", () => {
  it("returns 25 posts, newest first, when limit and sort are not given", async () => {
    const answer = await search(`subreddit=${sub}`);
    expect(answer.status).toBe(200);
    expect(answer.data).toHaveLength(25);
    expect(isSorted(createdTimes(answer.data), "desc")).toBe(true);
    expect(answer.data.every((post: { subreddit: string }) => post.subreddit === sub)).toBe(true);
  });

  it("sorts oldest first with sort=asc", async () => {
    const answer = await search(`subreddit=${sub}&sort=asc&limit=50`);
    expect(isSorted(createdTimes(answer.data), "asc")).toBe(true);
  });

  it.each([
    ["1", 1],
    ["100", 100],
    ["auto", 100],
  ])("returns %s rows for limit=%s", async (limit, expected) => {
    expect((await search(`limit=${limit}`)).data).toHaveLength(expected);
  });

  it.each(["0", "101", "-3", "abc", "2.5"])("answers 400 with an error body for limit=%s", async (limit) => {
    const answer = await search(`limit=${limit}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ data: null, error: expect.stringContaining("limit") });
  });

  it.each(["sort=newest", "sort_type=score", "over_18=maybe", "after=1w", "before=yesterday"])(
    "answers 400 for %s",
    async (query) => {
      const answer = await search(query);
      expect(answer.status).toBe(400);
      expect(answer.body.data).toBeNull();
      expect(typeof answer.body.error).toBe("string");
    },
  );

  it("matches the subreddit case-insensitively and ignores an r/ prefix", async () => {
    const plain = await search(`subreddit=${sub}&limit=5`);
    const prefixed = await search(`subreddit=r/${sub.toUpperCase()}&limit=5`);
    expect(prefixed.data).toEqual(plain.data);
  });

  it("returns an empty list for an unknown subreddit or author", async () => {
    expect((await search("subreddit=no_such_sub")).body).toEqual({ data: [] });
    expect((await search("author=no_such_user_zz")).body).toEqual({ data: [] });
  });

  it("filters by author, ignoring a u/ prefix", async () => {
    const author = sim.probe.knownUser().author;
    const answer = await search(`author=u/${author}&limit=100`);
    expect(answer.data.length).toBeGreaterThan(0);
    expect(answer.data.every((post: { author: string }) => post.author === author)).toBe(true);
  });

  it("treats after and before as exclusive bounds", async () => {
    const page = (await search(`subreddit=${sub}&limit=100&sort=asc`)).data as { created_utc: number }[];
    const shared = page.find(
      (post, i) => i > 0 && page[i - 1]!.created_utc === post.created_utc,
    )!.created_utc;
    const atShared = page.filter((post) => post.created_utc === shared).length;
    expect(atShared).toBeGreaterThan(1);
    const after = (await search(`subreddit=${sub}&limit=100&sort=asc&after=${shared}`)).data;
    expect(after[0].created_utc).toBeGreaterThan(shared);
    const before = (await search(`subreddit=${sub}&limit=100&sort=desc&before=${shared}`)).data;
    expect(before[0].created_utc).toBeLessThan(shared);
    const around = await search(
      `subreddit=${sub}&limit=100&sort=asc&after=${shared - 1}&before=${shared + 1}`,
    );
    expect(createdTimes(around.data)).toEqual(Array(atShared).fill(shared));
  });

  it("accepts after/before as epoch seconds, epoch milliseconds, ISO dates and offsets", async () => {
    const now = sim.clock.seconds;
    const since = now - 3 * 86_400;
    const iso = new Date(since * 1000).toISOString();
    const forms = [
      `${since}`,
      `${since * 1000}`,
      iso,
      iso.slice(0, 19).replace("T", " "),
      "3d",
      "72h",
      "4320min",
    ];
    const answers = await Promise.all(
      forms.map((form) => search(`after=${encodeURIComponent(form)}&limit=100&sort=asc`)),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.data).toEqual(answers[0]!.data);
      expect(answer.data[0].created_utc).toBeGreaterThan(since);
    }
  });

  it("never serves posts created after the current time", async () => {
    const newest = (await search("limit=1")).data[0];
    expect(newest.created_utc).toBeLessThanOrEqual(sim.clock.seconds);
    const future = await search(`after=${sim.clock.seconds}`);
    expect(future.body).toEqual({ data: [] });
  });

  it("pages through a subreddit by moving before to the last created_utc, with no post lost", async () => {
    const ids = new Set<string>();
    let before = "";
    for (let page = 0; page < 200; page++) {
      const rows = (await search(`subreddit=${sub}&limit=100&sort=desc${before}`)).data as {
        id: string;
        created_utc: number;
      }[];
      if (rows.length === 0) break;
      for (const row of rows) ids.add(row.id);
      before = `&before=${rows.at(-1)!.created_utc + 1}`;
      if (rows.length < 100) break;
    }
    const all = sim.probe.posts({ subreddit: sub }, 100_000);
    expect(ids.size).toBe(all.length);
  });

  it("projects exactly the requested fields", async () => {
    const answer = await search(`subreddit=${sub}&limit=3&fields=id,title,crosspost_parent,num_comments`);
    for (const post of answer.data)
      expect(Object.keys(post)).toEqual(["id", "title", "crosspost_parent", "num_comments"]);
  });

  it.each(["permalink", "hide_score", "ups", "name", "is_self", "body"])(
    "answers 400 when fields asks for the unselectable %s",
    async (field) => {
      const answer = await search(`fields=id,${field}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ data: null, error: expect.stringContaining(field) });
    },
  );

  it.each(["title", "selftext", "query", "link_flair_text", "author_flair_text"])(
    "answers 400 for a %s keyword search without author or subreddit",
    async (param) => {
      const answer = await search(`${param}=word`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(param);
    },
  );

  it("finds posts by a word of their title within a subreddit", async () => {
    const title = (await search(`subreddit=${sub}&limit=1&sort=asc`)).data[0].title as string;
    const word = title.split(/\W+/).filter((w) => w.length > 4)[0]!;
    const answer = await search(`subreddit=${sub}&title=${encodeURIComponent(word)}&limit=100`);
    expect(answer.data.length).toBeGreaterThan(0);
    for (const post of answer.data) expect(post.title.toLowerCase()).toContain(word.toLowerCase());
  });

  it("filters nsfw posts with over_18", async () => {
    const nsfw = await search("subreddit=MorbidReality&over_18=true&limit=10");
    expect(nsfw.data.length).toBeGreaterThan(0);
    expect(nsfw.data.every((post: { over_18: boolean }) => post.over_18)).toBe(true);
    const safe = await search("subreddit=MorbidReality&over_18=no&limit=10");
    expect(safe.data.every((post: { over_18: boolean }) => !post.over_18)).toBe(true);
  });

  it("matches url as a prefix, or exactly with url_exact", async () => {
    const link = (
      (await search(`subreddit=${sub}&limit=100`)).data as { url: string; is_self: boolean }[]
    ).find((post) => !post.is_self)!;
    const prefix = encodeURIComponent(link.url.slice(0, -2));
    expect(
      (await search(`subreddit=${sub}&url=${prefix}&limit=100`)).data.map((p: { url: string }) => p.url),
    ).toContain(link.url);
    expect((await search(`subreddit=${sub}&url=${prefix}&url_exact=true`)).data).toEqual([]);
  });

  it("adds selftext_html with md2html=true", async () => {
    const answer = await search(`subreddit=${sub}&limit=5&md2html=true`);
    for (const post of answer.data) expect(post).toHaveProperty("selftext_html");
  });

  it("accepts sort_type=created_utc and ignores unknown parameters", async () => {
    const answer = await search(`subreddit=${sub}&sort_type=created_utc&meta-app=test&limit=2`);
    expect(answer.status).toBe(200);
    expect(answer.data).toHaveLength(2);
  });

  it("serves posts shaped like Reddit's, with a consistent permalink and an absolute url", async () => {
    const posts = (await search(`subreddit=${sub}&limit=100`)).data as Record<string, unknown>[];
    for (const post of posts) {
      expect(post.name).toBe(`t3_${post.id}`);
      expect(post.permalink).toMatch(new RegExp(`^/r/${sub}/comments/${post.id}/[a-z0-9_]+/$`));
      expect(post.ups).toBe(post.score);
      expect(post.downs).toBe(0);
      expect(post.created).toBe(post.created_utc);
      expect(post.url).toMatch(/^https:\/\//);
      if (post.is_self) expect(post.url).toBe(`https://www.reddit.com${post.permalink}`);
      else expect(post.url).not.toContain("/comments/");
    }
  });
});
