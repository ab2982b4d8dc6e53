/** Deterministic answers of the fake gateway: a few rows shaped like the spec's objects (§2). */
import type { OperationName } from "@rda/contracts";

export interface SampleAnswer {
  data: unknown;
  cursor: number | null;
  hasMore: boolean;
}

const BASE_TIME = 1_700_000_000;

export function sampleData(
  operation: OperationName,
  params: Record<string, unknown>,
  balance: number,
): SampleAnswer {
  switch (operation) {
    case "listPosts":
      return rows(params, (index) => ({
        id: `p${index}`,
        title: `Post ${index}`,
        selftext: "text",
        author: "someone",
        created_utc: BASE_TIME - index * 60,
        subreddit: String(params.subreddit ?? "test"),
      }));
    case "listComments":
      return rows(params, (index) => ({
        id: `c${index}`,
        body: `Comment ${index}`,
        author: "someone",
        created_utc: BASE_TIME - index * 60,
        link_id: "t3_p0",
        parent_id: "t3_p0",
      }));
    case "getCommentTree":
      return unpaged([{ kind: "t1", data: { id: "c0", body: "root", score: 3 }, replies: [] }]);
    case "searchSubreddits":
      return unpaged([{ name: String(params.q), subscribers: 10, description: "a community" }]);
    case "getSubredditRules":
      return unpaged({
        subreddit: params.name,
        rules: [{ short_name: "Be kind", description: "", priority: 0 }],
      });
    case "getUserProfile":
      return unpaged({ user: null });
    case "searchUsers":
      return unpaged([
        {
          author: "someone",
          id: "u1",
          _meta: {
            num_posts: 3,
            num_comments: 9,
            post_karma: 40,
            comment_karma: 12,
            total_karma: 52,
            earliest_post_at: BASE_TIME - 86_400,
            earliest_comment_at: BASE_TIME - 86_400,
            last_post_at: BASE_TIME,
            last_comment_at: BASE_TIME,
          },
        },
      ]);
    case "getActivity":
      return unpaged({
        kind: "posts",
        interval: "day",
        after: BASE_TIME - 1,
        before: BASE_TIME + 86_400,
        source: "aggregate",
        total: 4,
        buckets: [{ start: BASE_TIME - (BASE_TIME % 86_400), count: 4, settled: true }],
      });
    case "getAccount":
      return unpaged({
        credits_balance: balance,
        rate_limit: { qps: 2, burst: 10 },
        low_balance_threshold: 100,
        spend: {
          month: "2026-05",
          credits_spent: 0,
          monthly_cap: null,
          resets_at: "2026-06-01T00:00:00.000Z",
        },
      });
  }
}

/** A full page of `limit` rows (has_more true), or the ids asked for in batch mode. */
function rows(
  params: Record<string, unknown>,
  row: (index: number) => Record<string, unknown>,
): SampleAnswer {
  if (typeof params.ids === "string") {
    return { data: params.ids.split(",").map((_id, index) => row(index)), cursor: null, hasMore: false };
  }
  const limit = Number(params.limit ?? 25);
  const data = Array.from({ length: limit }, (_unused, index) => row(index));
  return { data, cursor: data.at(-1)?.created_utc as number, hasMore: true };
}

function unpaged(data: unknown): SampleAnswer {
  return { data, cursor: null, hasMore: false };
}
