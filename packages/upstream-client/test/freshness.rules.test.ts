/**
 * What "settled" means, rule by rule: how long each kind of upstream answer may be served again, and
 * which answers are never stored.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_FRESHNESS_BOUNDS, judgeFreshness, SETTLING_WINDOW_S } from "../src/index.ts";

const NOW_MS = Date.UTC(2026, 10, 1, 12, 0, 0);
const NOW_S = NOW_MS / 1000;
const HOUR = 3600;
const bounds = { freshS: 30, settledS: 3600, userS: 600 };

function judge(path: string, query: Record<string, string | number | undefined>, data: unknown, extra = {}) {
  return judgeFreshness(
    { path, query, answeredQuery: query, data, onlyData: true, ...extra },
    bounds,
    NOW_MS,
  );
}

const post = (createdUtc: number) => ({ id: "abc", created_utc: createdUtc });

describe("freshness of upstream answers", () => {
  it("keeps the documented defaults and a 36 hour settling window", () => {
    expect(DEFAULT_FRESHNESS_BOUNDS).toEqual({ freshS: 30, settledS: 3600, userS: 600 });
    expect(SETTLING_WINDOW_S).toBe(36 * HOUR);
  });

  it("serves a listing without an upper bound, or one reaching into the last 36 hours, for at most the fresh bound", () => {
    const rows = [post(NOW_S - 100 * HOUR)];
    expect(judge("/api/posts/search", { subreddit: "pics", limit: 100 }, rows)).toMatchObject({
      class: "fresh",
      maxAgeS: 30,
    });
    const reaching = { subreddit: "pics", before: NOW_S - 35 * HOUR };
    expect(judge("/api/comments/search", reaching, rows)).toMatchObject({ class: "fresh", maxAgeS: 30 });
  });

  it("serves a listing whose window ended 36 hours ago or more for the settled bound", () => {
    const rows = [post(NOW_S - 40 * HOUR)];
    const settled = { subreddit: "pics", before: NOW_S - SETTLING_WINDOW_S };
    expect(judge("/api/posts/search", settled, rows)).toMatchObject({ class: "settled", maxAgeS: 3600 });
    const aggregate = { aggregate: "created_utc", frequency: "day", before: NOW_S - 90 * 24 * HOUR };
    expect(judge("/api/posts/search/aggregate", aggregate, [{ created_utc: 1, count: 2 }])).toMatchObject({
      class: "settled",
    });
  });

  it("settles ids only when every id came back and every item is older than 36 hours", () => {
    const old = NOW_S - 37 * HOUR;
    expect(judge("/api/posts/ids", { ids: "a,b" }, [post(old), post(old)])).toMatchObject({
      class: "settled",
    });
    expect(judge("/api/posts/ids", { ids: "a,b" }, [post(old), post(NOW_S - HOUR)])).toMatchObject({
      class: "fresh",
    });
    expect(judge("/api/posts/ids", { ids: "a,b,c" }, [post(old), post(old)])).toMatchObject({
      class: "fresh",
    });
  });

  it("settles a comment tree by its oldest comment, however deep", () => {
    const tree = (oldest: number) => [
      {
        kind: "t1",
        data: {
          created_utc: NOW_S - HOUR,
          replies: { data: { children: [{ data: { created_utc: oldest } }] } },
        },
      },
    ];
    expect(judge("/api/comments/tree", { link_id: "abc" }, tree(NOW_S - 40 * HOUR))).toMatchObject({
      class: "settled",
    });
    expect(judge("/api/comments/tree", { link_id: "abc" }, tree(NOW_S - 2 * HOUR))).toMatchObject({
      class: "fresh",
    });
  });

  it("treats rules and community search as settled and user aggregates as user data", () => {
    expect(judge("/api/subreddits/rules", { subreddits: "pics" }, [{ rules: [] }])).toMatchObject({
      class: "settled",
    });
    expect(
      judge("/api/subreddits/search", { subreddit_prefix: "pi" }, [{ subreddit: "pics" }]),
    ).toMatchObject({
      class: "settled",
    });
    expect(judge("/api/users/search", { author: "spez" }, [{ author: "spez" }])).toMatchObject({
      class: "user",
      maxAgeS: 600,
    });
  });

  it("never stores empty answers, answers with more than data, answers to a halved limit, or unknown paths", () => {
    const query = { subreddit: "pics", limit: 100 };
    expect(judge("/api/posts/search", query, [])).toMatchObject({ cacheable: false });
    expect(judge("/api/subreddits/rules", { subreddits: "pics" }, null)).toMatchObject({ cacheable: false });
    expect(judge("/api/posts/search", query, [post(1)], { onlyData: false })).toMatchObject({
      cacheable: false,
    });
    const halved = { answeredQuery: { subreddit: "pics", limit: 50 } };
    expect(judge("/api/posts/search", query, [post(1)], halved)).toMatchObject({ cacheable: false });
    expect(judge("/api/time_series", { key: "r/pics" }, [1])).toMatchObject({ cacheable: false });
  });
});
