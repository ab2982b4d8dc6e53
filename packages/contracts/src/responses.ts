/**
 * Response bodies (spec §2). Upstream objects pass through untrimmed, so item schemas are loose: they
 * document the fields the spec names and let every other upstream field through.
 */
import { z } from "zod";

const epochSeconds = z.number().int().meta({ description: "Epoch seconds." });

export const postSchema = z
  .looseObject({
    id: z.string(),
    title: z.string(),
    selftext: z.string(),
    author: z.string(),
    created_utc: epochSeconds,
    subreddit: z.string().meta({ description: "Community name." }),
    permalink: z.string().meta({ description: "Relative path on the upstream site." }),
    url: z
      .string()
      .meta({ description: "Absolute URL: the external link, or the full permalink of a self post." }),
    num_comments: z.number().int().meta({
      description: "Reads 0 during the ~36 h hide_score blackout; the comment tree gives a true count.",
    }),
    score: z.number().int().meta({ description: "Pinned at 1 during the blackout." }),
    hide_score: z.boolean(),
  })
  .partial()
  .meta({
    id: "Post",
    description: "Upstream post object; every field is present unless `fields` trims it.",
  });
export type Post = z.infer<typeof postSchema>;

export const commentSchema = z
  .looseObject({
    id: z.string(),
    body: z.string(),
    author: z.string(),
    created_utc: epochSeconds,
    subreddit: z.string(),
    link_id: z.string().meta({ description: "Fullname (t3_…) of the parent post." }),
    parent_id: z.string().meta({ description: "Fullname of the immediate parent (t3_… or t1_…)." }),
    permalink: z.string(),
    score: z.number().int(),
  })
  .partial()
  .meta({
    id: "Comment",
    description: "Upstream comment object; every field is present unless `fields` trims it.",
  });
export type Comment = z.infer<typeof commentSchema>;

export const moreStubSchema = z
  .looseObject({
    count: z.number().int().meta({ description: "Comments in the collapsed part of the thread." }),
    children: z
      .array(z.string())
      .meta({ description: "Ids of the collapsed comments directly below the parent." }),
    id: z.string(),
    name: z.string(),
    parent_id: z.string(),
    depth: z.number().int(),
  })
  .meta({ id: "MoreStub" });

export interface CommentTreeNode {
  kind: "t1" | "more";
  data: Record<string, unknown>;
  replies: CommentTreeNode[];
}

export const commentTreeNodeSchema: z.ZodType<CommentTreeNode> = z
  .object({
    kind: z
      .enum(["t1", "more"])
      .meta({ description: "t1 for a comment; more for a collapsed part of the thread." }),
    data: z.record(z.string(), z.unknown()).meta({
      description: "For t1: a Comment plus score. For more: a MoreStub (count and children ids).",
    }),
    get replies() {
      return z.array(commentTreeNodeSchema);
    },
  })
  .meta({ id: "CommentTreeNode" });

export const communitySchema = z
  .object({
    name: z.string(),
    subscribers: z.number().int(),
    description: z.string(),
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

export const accountSchema = z
  .object({
    credits_balance: z.number().int(),
    rate_limit: z.object({ qps: z.number().int(), burst: z.number().int() }),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof accountSchema>;

/** `_service` on list-style endpoints (spec §2). */
export const listServiceMetaSchema = z
  .object({
    cursor: z.number().int().nullable().meta({
      description:
        "created_utc of the last row of the raw page; pass it as `before` (sort=desc) or `after` (sort=asc). Null when the page was empty or the mode is not paginated.",
    }),
    has_more: z.boolean().meta({ description: "True whenever the raw page came back full." }),
    credits_used: z.number().int().min(0).max(1),
    credits_remaining: z.number().int().min(0),
  })
  .meta({ id: "ListServiceMeta" });
export type ListServiceMeta = z.infer<typeof listServiceMetaSchema>;

/** `_service` on rules, user profile and account (spec §2 rule 1). */
export const creditServiceMetaSchema = z
  .object({
    credits_used: z.number().int().min(0).max(1),
    credits_remaining: z.number().int().min(0),
  })
  .meta({ id: "CreditServiceMeta" });
export type CreditServiceMeta = z.infer<typeof creditServiceMetaSchema>;

export const errorBodySchema = z
  .object({ error: z.string().meta({ description: "What went wrong and what to do about it." }) })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof errorBodySchema>;

export function listEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, _service: listServiceMetaSchema });
}

export function creditEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, _service: creditServiceMetaSchema });
}
