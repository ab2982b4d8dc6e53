/**
 * Parameters of GET /v1/users/search and GET /v1/activity (docs/api.md#amendments-to-the-original-contract). Like every
 * parameter schema, each is idempotent: its output parses again to the same value.
 */
import { z } from "zod";
import { integerFrom, timeBoundParam } from "./archive-params.ts";
import { TIME_BOUND_HINT } from "./dates.ts";
import { authorFilter, phraseFilter, subredditFilter } from "./params.ts";

/** Users the upstream ranks for one search; `offset` + `limit` stays within it. */
export const MAX_USER_SEARCH_RANK = 1000;

export const searchUsersParamsSchema = z
  .strictObject({
    author_prefix: z
      .string({ error: "must be the beginning of a username" })
      .regex(/^(u\/)?[A-Za-z0-9_-]{1,64}$/, {
        error: "must be 1 to 64 letters, digits, underscores or hyphens, without u/",
      })
      .transform((name) => name.replace(/^u\//, ""))
      .optional()
      .meta({ description: "Only usernames starting with this (case does not matter)." }),
    min_karma: integerFrom(-1_000_000_000, 1_000_000_000_000)
      .optional()
      .meta({ description: "Only users whose archived karma is at least this." }),
    active_since: timeBoundParam
      .optional()
      .meta({ description: `Only users with a post or comment since then: ${TIME_BOUND_HINT}.` }),
    sort_type: z
      .enum(["karma", "name"], { error: "must be karma or name" })
      .default("karma")
      .meta({ description: "Order by total archived karma or by username." }),
    sort: z
      .enum(["asc", "desc"], { error: "must be asc or desc" })
      .default("desc")
      .meta({ description: "Order direction." }),
    limit: integerFrom(1, 100).default(25).meta({ description: "Users per page, 1 to 100." }),
    offset: integerFrom(0, MAX_USER_SEARCH_RANK - 1)
      .default(0)
      .meta({
        description:
          "Rank of the first user of the page: pass `_service.cursor` of the previous page. The archive ranks at most the first 1,000 users of one search.",
      }),
  })
  .superRefine((params, ctx) => {
    if (params.offset + params.limit > MAX_USER_SEARCH_RANK) {
      const message = `with limit, must stay within the first ${MAX_USER_SEARCH_RANK} users (offset + limit ≤ ${MAX_USER_SEARCH_RANK})`;
      ctx.addIssue({ code: "custom", message, path: ["offset"] });
    }
  });
export type SearchUsersParams = z.output<typeof searchUsersParamsSchema>;

export const ACTIVITY_INTERVAL_SECONDS = { hour: 3600, day: 86_400, week: 604_800 } as const;
export type ActivityInterval = keyof typeof ACTIVITY_INTERVAL_SECONDS;
/** Buckets one answer may hold: 41 days by the hour, almost 3 years by the day. */
export const MAX_ACTIVITY_BUCKETS = 1000;

/** Weeks start on Monday 00:00 UTC; 1970-01-01 was a Thursday, so Monday-aligned weeks are offset. */
const WEEK_OFFSET_SECONDS = 4 * 86_400;

/** The start of the bucket holding `second`. */
export function activityBucketStart(second: number, interval: ActivityInterval): number {
  const length = ACTIVITY_INTERVAL_SECONDS[interval];
  const offset = interval === "week" ? WEEK_OFFSET_SECONDS : 0;
  return Math.floor((second - offset) / length) * length + offset;
}

export const getActivityParamsSchema = z
  .strictObject({
    kind: z
      .enum(["posts", "comments"], { error: "must be posts or comments" })
      .default("posts")
      .meta({ description: "What is counted." }),
    subreddit: subredditFilter.optional().meta({ description: "Community name without r/." }),
    author: authorFilter.optional().meta({ description: "Username without u/." }),
    q: phraseFilter.optional().meta({
      description:
        "Count only items containing this exact phrase (title and selftext, or body; singular/plural tolerant), within the community or author given.",
    }),
    interval: z
      .enum(["hour", "day", "week"], { error: "must be hour, day or week" })
      .default("day")
      .meta({ description: "Bucket size. Buckets are UTC; weeks start on Monday." }),
    after: timeBoundParam.meta({
      description: `Start of the window (exclusive, required): ${TIME_BOUND_HINT}.`,
    }),
    before: timeBoundParam.optional().meta({
      description: `End of the window (exclusive); now when omitted: ${TIME_BOUND_HINT}.`,
    }),
  })
  .superRefine((params, ctx) => {
    if (params.subreddit === undefined && params.author === undefined) {
      ctx.addIssue({ code: "custom", message: "give at least one of subreddit or author", path: [] });
    }
    const before = params.before ?? Math.floor(Date.now() / 1000);
    if (params.after >= before) {
      ctx.addIssue({ code: "custom", message: "must be earlier than before (or now)", path: ["after"] });
      return;
    }
    const first = activityBucketStart(params.after + 1, params.interval);
    const buckets = Math.ceil((before - first) / ACTIVITY_INTERVAL_SECONDS[params.interval]);
    if (buckets > MAX_ACTIVITY_BUCKETS) {
      const message = `spans ${buckets} buckets of one ${params.interval}; at most ${MAX_ACTIVITY_BUCKETS} per call: narrow the window or use a longer interval`;
      ctx.addIssue({ code: "custom", message, path: ["after"] });
    }
  });
export type GetActivityParams = z.output<typeof getActivityParamsSchema>;
