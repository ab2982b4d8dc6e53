/**
 * Response bodies besides the post and comment objects (reddit-objects.ts). Upstream objects pass
 * through untrimmed, so their schemas are loose: they document the fields the API names and let every
 * other upstream field through.
 */
import { z } from "zod";
import { ERRORS, type ErrorCode } from "./errors.ts";

const epochSeconds = z.number().int().meta({ description: "Epoch seconds." });

export const communitySchema = z
  .object({
    name: z.string(),
    subscribers: z.number().int(),
    description: z.string(),
    title: z.string().optional().meta({ description: "The community's title, where the archive has one." }),
    created_utc: epochSeconds.optional().meta({ description: "When the community was created." }),
    _meta: z
      .looseObject({
        num_posts: z.number().int(),
        num_comments: z.number().int(),
      })
      .partial()
      .optional()
      .meta({
        description: "The archive's counts of the community's posts and comments, where it has them.",
      }),
  })
  .meta({ id: "Community" });
export type Community = z.infer<typeof communitySchema>;

export const communityRuleSchema = z
  .looseObject({
    short_name: z.string(),
    description: z.string(),
    priority: z.number().int(),
  })
  .meta({ id: "CommunityRule" });

export const subredditRulesSchema = z
  .object({ subreddit: z.string(), rules: z.array(communityRuleSchema) })
  .meta({ id: "SubredditRules" });
export type SubredditRules = z.infer<typeof subredditRulesSchema>;

export const userProfileSchema = z
  .looseObject({
    author: z.string(),
    id: z
      .string()
      .nullable()
      .meta({ description: "Account id without t2_; null for long-inactive accounts." }),
    _meta: z.looseObject({
      num_posts: z.number().int(),
      num_comments: z.number().int(),
      post_karma: z.number().int(),
      comment_karma: z.number().int(),
      total_karma: z.number().int(),
      earliest_post_at: epochSeconds.nullable(),
      earliest_comment_at: epochSeconds.nullable(),
      last_post_at: epochSeconds.nullable(),
      last_comment_at: epochSeconds.nullable(),
    }),
  })
  .meta({ id: "UserProfile", description: "Archive aggregates; karma is summed from archived items." });

export const userProfileResultSchema = z
  .object({ user: userProfileSchema.nullable() })
  .meta({ id: "UserProfileResult", description: "user is null when no account matches exactly." });
export type UserProfileResult = z.infer<typeof userProfileResultSchema>;

export const monthlySpendSchema = z
  .object({
    month: z.string().meta({ description: "The calendar month (UTC) counted, as YYYY-MM." }),
    credits_spent: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Credits this key was charged this month; refunded requests do not count." }),
    monthly_cap: z.number().int().min(1).nullable().meta({
      description:
        "The most credits the key may spend in a calendar month, set by its owner in the developer portal; null when it has no cap. A request past it is answered 402 and not charged.",
    }),
    resets_at: z.string().meta({
      description: "When the month's spend starts again from 0: the next month's first instant, UTC.",
    }),
  })
  .meta({ id: "MonthlySpend" });
export type MonthlySpend = z.infer<typeof monthlySpendSchema>;

export const accountSchema = z
  .object({
    credits_balance: z.number().int(),
    rate_limit: z.object({ qps: z.number().int(), burst: z.number().int() }),
    low_balance_threshold: z.number().int().min(0).meta({
      description:
        "Below this balance the key's account is told by email (and webhook, where set): the threshold the account chose in the developer portal, else a tenth of the key's last top-up, else 100.",
    }),
    spend: monthlySpendSchema.meta({ description: "This month's spend and the monthly spend cap." }),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof accountSchema>;

/** `_service` on list-style endpoints (docs/api.md#pagination). */
export const listServiceMetaSchema = z
  .object({
    cursor: z.number().int().nullable().meta({
      description:
        "created_utc of the last row of the page (before any `q` filtering): pass it as `before` (sort=desc) or `after` (sort=asc) to get the next page. Null when the page was empty or the mode is not paginated (batch, tree, search).",
    }),
    has_more: z.boolean().meta({
      description:
        "True when the listing goes on: the page came back full. A page may hold fewer rows than `limit` while has_more is true, because the rows of one created_utc second are never split across pages; with `q` it may even be empty. Stop paging when it is false.",
    }),
    credits_used: z.number().int().min(0).max(1),
    credits_remaining: z.number().int().min(0),
    cached_at: z.number().int().optional().meta({
      description:
        "When the upstream produced this data, epoch seconds (the `Age` header gives the same in seconds ago). An answer served again from the shared cache keeps the time it was first fetched. Absent on the account endpoint.",
    }),
  })
  .meta({ id: "ListServiceMeta" });
export type ListServiceMeta = z.infer<typeof listServiceMetaSchema>;

/** `_service` on rules, user profile and account: the credit figures only. */
export const creditServiceMetaSchema = z
  .object({
    credits_used: z.number().int().min(0).max(1),
    credits_remaining: z.number().int().min(0),
    cached_at: z.number().int().optional().meta({
      description:
        "When the upstream produced this data, epoch seconds (the `Age` header gives the same in seconds ago). An answer served again from the shared cache keeps the time it was first fetched. Absent on the account endpoint.",
    }),
  })
  .meta({ id: "CreditServiceMeta" });
export type CreditServiceMeta = z.infer<typeof creditServiceMetaSchema>;

export const errorBodySchema = z
  .object({
    error: z.string().meta({ description: "What went wrong and what to do about it, for a person." }),
    code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]).meta({
      description:
        "The stable name of the error, from the catalog in docs/api.md#errors: switch on this, not on `error`.",
    }),
    param: z.string().optional().meta({
      description: "The one query parameter, path parameter or body field at fault, when there is one.",
    }),
  })
  .meta({ id: "Error" });

export function listEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, _service: listServiceMetaSchema });
}

export function creditEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, _service: creditServiceMetaSchema });
}
