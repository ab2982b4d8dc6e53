/**
 * The archive's own search through the whole stack over the simulator (docs/api.md#amendments-to-the-original-contract): the
 * post and comment listing filters, a post's comments as a flat paged list, community search options,
 * user search and activity counts. Each check compares what the API answers with what the same data
 * says read another way (every row of the filtered pages, the comment tree, a count made by paging).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

type Row = Record<string, unknown>;

let stack: Stack;
let key: string;
let keyId: string;

beforeAll(async () => {
  stack = await startStack();
  const created = await stack.createKey({ credits: 100_000, qps: 1_000, burst: 1_000 });
  key = created.key;
  keyId = created.id;
});
afterAll(async () => stack.stop());

async function get(path: string) {
  const result = await getJson(`${stack.gatewayUrl}${path}`, withKey(key));
  return { ...result, rows: (result.body.data ?? []) as Row[] };
}

async function ok(path: string) {
  const result = await get(path);
  expect(result.status, `${path}: ${JSON.stringify(result.body)}`).toBe(200);
  return result;
}

/** Every row of a listing, following the cursor until has_more is false. */
async function allPages(path: string, bound: "before" | "after" = "before"): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: unknown;
  const [route, query] = path.split("?") as [string, string];
  const params = new URLSearchParams(query);
  for (let page = 0; page < 500; page++) {
    if (cursor !== undefined) params.set(bound, String(cursor));
    const result = await ok(`${route}?${params}`);
    rows.push(...result.rows);
    const service = result.body._service as { cursor: number | null; has_more: boolean };
    if (!service.has_more) return rows;
    cursor = service.cursor;
  }
  throw new Error(`${path} did not end within 500 pages`);
}

const OLDER_THAN_BLACKOUT = "3d";

/** Calls of the archive's post and comment search (not its aggregate) the simulator has served so far. */
async function searchCalls(): Promise<number> {
  const stats = (await (await fetch(`${stack.simulatorUrl}/__sim/stats`)).json()) as {
    requests: Record<string, number>;
  };
  return (stats.requests["/api/posts/search"] ?? 0) + (stats.requests["/api/comments/search"] ?? 0);
}

describe("post listing filters", () => {
  const community = "typescript";

  it("over_18 and spoiler return only matching posts, in every form the upstream reads", async () => {
    for (const [name, forms] of [
      ["over_18", ["true", "0"]],
      ["spoiler", ["YES", "n"]],
    ] as const) {
      for (const form of forms) {
        const wanted = ["true", "1", "yes", "y"].includes(form.toLowerCase());
        const rows = await allPages(`/v1/posts?subreddit=MorbidReality&limit=100&${name}=${form}`);
        expect(rows.every((row) => row[name] === wanted)).toBe(true);
        // Every post of this NSFW community is marked over_18.
        if (name === "over_18") expect(rows.length > 0).toBe(wanted);
      }
    }
    const all = await allPages(`/v1/posts?subreddit=${community}&limit=100&after=30d`);
    const spoilers = await allPages(`/v1/posts?subreddit=${community}&limit=100&after=30d&spoiler=1`);
    const others = await allPages(`/v1/posts?subreddit=${community}&limit=100&after=30d&spoiler=false`);
    expect(spoilers.every((row) => row.spoiler === true)).toBe(true);
    expect(spoilers.length + others.length).toBe(all.length);
  });

  it("link_flair_text, author_flair_text, url (prefix and exact) and crosspost_parent_id keep only matching posts", async () => {
    const sample = await allPages(`/v1/posts?subreddit=${community}&limit=100&after=60d`);
    const flaired = sample.find((row) => typeof row.link_flair_text === "string");
    expect(flaired).toBeDefined();
    const flairWord = String(flaired!.link_flair_text).split(/\s+/)[0]!;
    const byFlair = await allPages(
      `/v1/posts?subreddit=${community}&limit=100&link_flair_text=${encodeURIComponent(flairWord)}`,
    );
    expect(byFlair.map((row) => row.id)).toContain(flaired!.id);
    expect(
      byFlair.every((row) => String(row.link_flair_text).toLowerCase().includes(flairWord.toLowerCase())),
    ).toBe(true);

    const authorFlaired = sample.find((row) => typeof row.author_flair_text === "string");
    if (authorFlaired) {
      const word = String(authorFlaired.author_flair_text).split(/\s+/)[0]!;
      const byAuthorFlair = await allPages(
        `/v1/posts?subreddit=${community}&limit=100&after=60d&author_flair_text=${encodeURIComponent(word)}`,
      );
      expect(byAuthorFlair.map((row) => row.id)).toContain(authorFlaired.id);
      expect(
        byAuthorFlair.every((row) =>
          String(row.author_flair_text).toLowerCase().includes(word.toLowerCase()),
        ),
      ).toBe(true);
    }

    const linked = sample.find((row) => row.is_self === false && typeof row.url === "string")!;
    const url = String(linked.url);
    const exact = await ok(`/v1/posts?subreddit=${community}&url=${encodeURIComponent(url)}&url_exact=true`);
    expect(exact.rows.map((row) => row.id)).toContain(linked.id);
    expect(exact.rows.every((row) => row.url === url)).toBe(true);
    const prefix = url.slice(0, Math.max(12, url.length - 6));
    const byPrefix = await allPages(
      `/v1/posts?subreddit=${community}&limit=100&url=${encodeURIComponent(prefix)}`,
    );
    expect(byPrefix.map((row) => row.id)).toContain(linked.id);
    expect(byPrefix.every((row) => String(row.url).startsWith(prefix))).toBe(true);

    const crosspost = await findCrosspost();
    const parent = String(crosspost.crosspost_parent);
    const bare = parent.replace(/^t3_/, "");
    for (const form of [parent, bare]) {
      const rows = await allPages(
        `/v1/posts?subreddit=${crosspost.subreddit}&limit=100&crosspost_parent_id=${form}`,
      );
      expect(rows.map((row) => row.id)).toContain(crosspost.id);
      expect(rows.every((row) => row.crosspost_parent === parent)).toBe(true);
    }
  });

  async function findCrosspost(): Promise<Row> {
    const search = await ok("/v1/subreddits/search?q=a&limit=100&min_subscribers=0");
    for (const { name } of search.rows) {
      const page = await ok(`/v1/posts?subreddit=${name}&limit=100&before=${OLDER_THAN_BLACKOUT}`);
      const found = page.rows.find((row) => typeof row.crosspost_parent === "string");
      if (found) return found;
    }
    throw new Error("no crosspost found in the simulator's communities");
  }
});

describe("a post's comments as a flat list (link_id, parent_id)", () => {
  it("pages exactly the post's comments, each once, the same set as its whole tree", async () => {
    const posts = await ok(`/v1/posts?subreddit=Cooking&limit=100&before=${OLDER_THAN_BLACKOUT}`);
    const post = posts.rows.find((row) => Number(row.num_comments) >= 15 && Number(row.num_comments) <= 400)!;
    expect(post).toBeDefined();
    const comments = await allPages(`/v1/comments?link_id=t3_${post.id}&limit=4`);
    const ids = comments.map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(comments.every((row) => row.link_id === `t3_${post.id}`)).toBe(true);

    const tree = await ok(`/v1/comments/tree?post_id=${post.id}&limit=500`);
    const inTree: string[] = [];
    const topLevel: string[] = [];
    const walk = (nodes: Row[], depth: number) => {
      for (const node of nodes) {
        if (node.kind !== "t1") continue;
        const data = node.data as Row;
        inTree.push(String(data.id));
        if (depth === 0) topLevel.push(String(data.id));
        walk(node.replies as Row[], depth + 1);
      }
    };
    walk(tree.rows, 0);
    expect([...ids].sort()).toEqual([...inTree].sort());
    expect(ids.length).toBe(Number(post.num_comments));

    // Ascending with the other bound, and an empty parent_id: the top level only.
    const top = await allPages(`/v1/comments?link_id=${post.id}&parent_id=&sort=asc&limit=3`, "after");
    expect(top.map((row) => row.id).sort()).toEqual([...topLevel].sort());
    expect(top.every((row) => row.parent_id === `t3_${post.id}`)).toBe(true);

    // A post's top level by parent_id=t3_…: the same comments.
    const byPost = await allPages(`/v1/comments?parent_id=t3_${post.id}&limit=100`);
    expect(byPost.map((row) => row.id).sort()).toEqual([...topLevel].sort());

    const parent = comments.find((row) => comments.some((other) => other.parent_id === `t1_${row.id}`))!;
    const replies = await allPages(`/v1/comments?parent_id=t1_${parent.id}&limit=100`);
    const expected = comments.filter((row) => row.parent_id === `t1_${parent.id}`).map((row) => row.id);
    expect(replies.map((row) => row.id).sort()).toEqual([...expected].sort());
  });
});

describe("community search options", () => {
  it("filters, orders and sizes the matches, and adds title, created_utc and _meta counts", async () => {
    const byDefault = await ok("/v1/subreddits/search?q=a");
    expect(byDefault.rows.length).toBeLessThanOrEqual(10);
    const many = await ok("/v1/subreddits/search?q=a&limit=100&sort_type=name&sort=asc");
    const names = many.rows.map((row) => String(row.name).toLowerCase());
    expect(names).toEqual([...names].sort());
    for (const row of many.rows) {
      expect(typeof row.title).toBe("string");
      expect(Number.isInteger(row.created_utc)).toBe(true);
      expect(Number.isInteger((row._meta as Row).num_posts)).toBe(true);
    }
    const bounded = await ok(
      "/v1/subreddits/search?q=m&limit=100&min_subscribers=1000&max_subscribers=5000000",
    );
    expect(
      bounded.rows.every((row) => Number(row.subscribers) >= 1000 && Number(row.subscribers) <= 5_000_000),
    ).toBe(true);
    const nsfw = await ok("/v1/subreddits/search?q=m&limit=100&over18=y");
    expect(nsfw.rows.map((row) => row.name)).toEqual(["MorbidReality"]);
    const oldest = await ok("/v1/subreddits/search?q=a&limit=100&sort_type=created_utc&sort=asc");
    const created = oldest.rows.map((row) => Number(row.created_utc));
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });
});

describe("user search", () => {
  it("filters by prefix and karma, orders by karma, and pages by rank without gaps or repeats", async () => {
    const one = await ok("/v1/users/search?author_prefix=b&limit=15&min_karma=10");
    const users = one.rows as { author: string; _meta: { total_karma: number } }[];
    expect(users).toHaveLength(15);
    expect(users.every((user) => user.author.toLowerCase().startsWith("b"))).toBe(true);
    expect(users.every((user) => user._meta.total_karma >= 10)).toBe(true);
    const karma = users.map((user) => user._meta.total_karma);
    expect(karma).toEqual([...karma].sort((a, b) => b - a));

    // Three pages of 5, each from the previous page's cursor: the same 15 users in the same order.
    const paged: string[] = [];
    let path = "/v1/users/search?author_prefix=b&limit=5&min_karma=10";
    for (let page = 0; page < 3; page++) {
      const result = await ok(path);
      paged.push(...result.rows.map((row) => String(row.author)));
      const service = result.body._service as { cursor: number | null; has_more: boolean };
      expect(service).toMatchObject({ has_more: true, cursor: (page + 1) * 5 });
      path = `/v1/users/search?author_prefix=b&limit=5&min_karma=10&offset=${service.cursor}`;
    }
    expect(paged).toEqual(users.map((user) => user.author));

    const byName = await ok("/v1/users/search?author_prefix=c&sort_type=name&sort=asc&limit=50");
    const names = byName.rows.map((row) => String(row.author).toLowerCase());
    expect(names).toHaveLength(50);
    expect(names).toEqual([...names].sort());
  });
});

describe("activity", () => {
  const DAY = 86_400;

  function bucketCounts(rows: Row[], length: number, offset = 0): Map<number, number> {
    const counts = new Map<number, number>();
    for (const row of rows) {
      const start = Math.floor((Number(row.created_utc) - offset) / length) * length + offset;
      counts.set(start, (counts.get(start) ?? 0) + 1);
    }
    return counts;
  }

  it("counts per day equal a count made by paging the same window, and marks the last 36 h unsettled", async () => {
    const now = Math.floor(Date.now() / 1000);
    const after = now - 6 * DAY;
    const result = await ok(`/v1/activity?subreddit=typescript&interval=day&after=${after}&before=${now}`);
    const activity = result.body.data as {
      source: string;
      total: number;
      buckets: { start: number; count: number; settled: boolean }[];
    };
    expect(activity.source).toBe("aggregate");
    expect((result.body._service as Row).credits_used).toBe(1);
    const rows = await allPages(
      `/v1/posts?subreddit=typescript&limit=100&sort=asc&after=${after}&before=${now}`,
      "after",
    );
    const paged = bucketCounts(rows, DAY);
    expect(activity.total).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(0);
    for (const bucket of activity.buckets) expect(bucket.count).toBe(paged.get(bucket.start) ?? 0);
    for (const bucket of activity.buckets) {
      expect(bucket.settled).toBe(Math.min(bucket.start + DAY, now) + 36 * 3600 <= now);
    }
    expect(activity.buckets.some((bucket) => !bucket.settled)).toBe(true);
    expect(activity.buckets.some((bucket) => bucket.settled)).toBe(true);
  });

  it("answers 502, refunded, when the archive's own counting fails, without paging the search for the same credit", async () => {
    const now = Math.floor(Date.now() / 1000);
    const path = `/v1/activity?subreddit=typescript&interval=day&after=${now - 6 * DAY}&before=${now}`;
    await stack.fault({ mode: "error", path: "/api/posts/search/aggregate" });
    try {
      const balance = await stack.balanceOf(keyId);
      const calls = await searchCalls();
      const result = await get(path);
      expect(result.status).toBe(502);
      expect(result.body.code).toBe("upstream_unavailable");
      expect(await stack.balanceOf(keyId)).toBe(balance);
      expect(await searchCalls()).toBe(calls);
    } finally {
      await stack.clearFaults();
    }
  });

  it("counts an author's comments per week (weeks from Monday) as paging them does", async () => {
    const posts = await ok(`/v1/comments?subreddit=Cooking&limit=20&before=${OLDER_THAN_BLACKOUT}`);
    const author = String(
      posts.rows.find((row) => row.author !== "[deleted]" && row.author !== "AutoModerator")!.author,
    );
    const now = Math.floor(Date.now() / 1000);
    const after = now - 120 * DAY;
    const result = await ok(
      `/v1/activity?kind=comments&author=${author}&interval=week&after=${after}&before=${now}`,
    );
    const activity = result.body.data as { total: number; buckets: { start: number; count: number }[] };
    const rows = await allPages(
      `/v1/comments?author=${author}&limit=100&sort=asc&after=${after}&before=${now}`,
      "after",
    );
    const paged = bucketCounts(rows, 7 * DAY, 4 * DAY);
    expect(activity.total).toBe(rows.length);
    for (const bucket of activity.buckets) {
      expect(new Date(bucket.start * 1000).getUTCDay()).toBe(1);
      expect(bucket.count).toBe(paged.get(bucket.start) ?? 0);
    }
  });

  it("with q, reads the window's one page and counts only the items containing the phrase", async () => {
    const now = Math.floor(Date.now() / 1000);
    const after = now - 20 * DAY;
    const page = await ok(`/v1/posts?subreddit=zen_garden&limit=100&sort=asc&after=${after}&before=${now}`);
    // A window that one upstream page holds: the whole page when it ended the listing, else its start.
    const before = page.rows.length < 100 ? now : Number(page.rows[60]!.created_utc);
    const window = page.rows.filter((row) => Number(row.created_utc) < before);
    const word = String(window[0]!.title)
      .split(/\W+/)
      .find((part) => part.length >= 5)!;
    const matching = await allPages(
      `/v1/posts?subreddit=zen_garden&limit=100&sort=asc&after=${after}&before=${before}&q=${word}`,
      "after",
    );
    const calls = await searchCalls();
    const result = await ok(
      `/v1/activity?subreddit=zen_garden&interval=hour&after=${after}&before=${before}&q=${word}`,
    );
    const activity = result.body.data as {
      source: string;
      total: number;
      buckets: { start: number; count: number }[];
      empty_unconfirmed: boolean;
    };
    expect(activity.source).toBe("search");
    expect((result.body._service as Row).credits_used).toBe(1);
    expect(await searchCalls()).toBe(calls + 1);
    expect(activity.total).toBe(matching.length);
    expect(activity.total).toBeGreaterThan(0);
    expect(activity.empty_unconfirmed).toBe(false);
    const paged = bucketCounts(matching, 3600);
    for (const bucket of activity.buckets) expect(bucket.count).toBe(paged.get(bucket.start) ?? 0);
  });

  it("with q, answers an empty window from its one upstream request, says the empty page is unconfirmed, and reads again (1 credit) when asked again", async () => {
    const now = Math.floor(Date.now() / 1000);
    // Years before the simulator's corpus: the archive answers an empty page.
    const path = `/v1/activity?kind=comments&subreddit=zen_garden&interval=day&after=${now - 900 * DAY}&before=${now - 890 * DAY}&q=garden`;
    const balance = await stack.balanceOf(keyId);
    const calls = await searchCalls();
    for (let asked = 1; asked <= 2; asked += 1) {
      const result = await ok(path);
      const activity = result.body.data as { source: string; total: number; empty_unconfirmed: boolean };
      expect(activity).toMatchObject({ source: "search", total: 0, empty_unconfirmed: true });
      // One credit, one upstream request: the empty page is not asked a second time for it, and an
      // empty answer is never cached, so asking again is a read of its own.
      expect((result.body._service as Row).credits_used).toBe(1);
      expect(await searchCalls()).toBe(calls + asked);
      expect(await stack.balanceOf(keyId)).toBe(balance - asked);
    }
  });

  it("with q, makes one upstream request even when it fails: not retried, 502, refunded", async () => {
    const now = Math.floor(Date.now() / 1000);
    const path = `/v1/activity?kind=comments&subreddit=zen_garden&interval=day&after=${now - 20 * DAY}&before=${now - 19 * DAY}&q=garden`;
    // A failure a listing would retry (a 500 with an error body): one attempt, then the next succeeds.
    await stack.fault({ mode: "error", path: "/api/comments/search", count: 1 });
    try {
      const balance = await stack.balanceOf(keyId);
      const calls = await searchCalls();
      const result = await get(path);
      expect(result.status).toBe(502);
      expect(result.body.code).toBe("upstream_unavailable");
      expect(await searchCalls()).toBe(calls + 1);
      expect(await stack.balanceOf(keyId)).toBe(balance);
    } finally {
      await stack.clearFaults();
    }
  });
});

describe("bad values are 400s and cost nothing", () => {
  it.each([
    "/v1/posts?subreddit=typescript&over_18=maybe",
    "/v1/posts?subreddit=typescript&spoiler=2",
    "/v1/posts?subreddit=typescript&url_exact=yess",
    "/v1/posts?subreddit=typescript&crosspost_parent_id=not-an-id",
    "/v1/posts?subreddit=typescript&link_flair_text=",
    "/v1/comments?link_id=t1_abc!",
    "/v1/comments?parent_id=x.y",
    "/v1/comments?parent_id=",
    "/v1/comments?link_id=abc&parent_id=t3_abd",
    "/v1/subreddits/search?q=a&limit=101",
    "/v1/subreddits/search?q=a&limit=0",
    "/v1/subreddits/search?q=a&sort_type=karma",
    "/v1/subreddits/search?q=a&over18=perhaps",
    "/v1/subreddits/search?q=a&min_subscribers=-1",
    "/v1/users/search?limit=101",
    "/v1/users/search?offset=990&limit=20",
    "/v1/users/search?sort_type=total_karma",
    "/v1/users/search?min_karma=lots",
    "/v1/users/search?active_since=soon",
    "/v1/activity?subreddit=typescript",
    "/v1/activity?subreddit=typescript&after=7d&interval=month",
    "/v1/activity?after=7d",
    "/v1/activity?subreddit=typescript&after=7d&kind=votes",
    "/v1/activity?subreddit=typescript&after=2y&interval=hour",
    "/v1/activity?subreddit=typescript&after=1d&before=2d",
  ])("%s", async (path) => {
    const before = await stack.balanceOf(keyId);
    const result = await get(path);
    expect(result.status).toBe(400);
    expect(typeof result.body.error).toBe("string");
    expect(await stack.balanceOf(keyId)).toBe(before);
  });

  it("refuses (uncharged) an activity search whose window holds more items than its one upstream page", async () => {
    const before = await stack.balanceOf(keyId);
    const calls = await searchCalls();
    const result = await get("/v1/activity?kind=comments&subreddit=Cooking&after=150d&interval=week&q=the");
    expect(result.status).toBe(400);
    // Our own limit, not the archive's refusal: the upstream is not blamed.
    expect(result.body.code).toBe("window_too_large");
    expect(String(result.body.error)).toMatch(/narrow the window/);
    expect(await stack.balanceOf(keyId)).toBe(before);
    // It read one page with one upstream request, not the window.
    expect((await searchCalls()) - calls).toBe(1);
  });
});
