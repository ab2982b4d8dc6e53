/**
 * Parameters that expose more of the archive's own search (docs/api.md#amendments-to-the-original-contract): the post and
 * comment listing filters, the community search options, user search and activity counts. Each maps
 * onto an upstream parameter of the same meaning (docs/upstream.md#post-and-comment-search), checked
 * here so a bad value is a 400 that costs nothing instead of an upstream error.
 */
import { z } from "zod";
import { nowEpochSeconds, parseTimeBound, TIME_BOUND_HINT } from "./dates.ts";
import { normaliseItemId } from "./ids.ts";

const TRUE_FORMS = ["true", "1", "yes", "y"];
const FALSE_FORMS = ["false", "0", "no", "n"];
const BOOLEAN_HINT = "must be one of true, false, 1, 0, yes, no, y, n";

/**
 * A boolean as the upstream reads it: `true`, `1`, `yes`, `y` or `false`, `0`, `no`, `n` (any case),
 * or a JSON boolean from an MCP client. Anything else is refused rather than read as false.
 */
export const upstreamBoolean = z
  .union([z.boolean(), z.string()], { error: BOOLEAN_HINT })
  .transform((raw, ctx) => {
    if (typeof raw === "boolean") return raw;
    const text = raw.trim().toLowerCase();
    if (TRUE_FORMS.includes(text)) return true;
    if (FALSE_FORMS.includes(text)) return false;
    ctx.addIssue({ code: "custom", message: BOOLEAN_HINT });
    return z.NEVER;
  });

const flairText = z
  .string({ error: "must be text" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(100, { error: "must be at most 100 characters" });

const postId = z.string({ error: "must be a post id" }).transform((raw, ctx) => {
  const id = normaliseItemId(raw, "post");
  if (id !== undefined) return id;
  ctx.addIssue({ code: "custom", message: "must be a post id (base36, optional t3_)" });
  return z.NEVER;
});

/** `parent_id`: empty for top-level comments only, else a post (`t3_…`) or a comment (`t1_…` or bare). */
const parentId = z.string({ error: "must be a comment id, a t3_ post id or empty" }).transform((raw, ctx) => {
  const text = raw.trim().toLowerCase();
  if (text === "") return "";
  if (text.startsWith("t3_")) {
    const post = normaliseItemId(text, "post");
    if (post !== undefined) return `t3_${post}`;
  } else {
    const comment = normaliseItemId(text, "comment");
    if (comment !== undefined) return `t1_${comment}`;
  }
  ctx.addIssue({ code: "custom", message: "must be a comment id (optional t1_), a t3_ post id, or empty" });
  return z.NEVER;
});

/** Listing filters of GET /v1/posts, forwarded to the upstream's post search under the same names. */
export const POST_FILTERS = {
  over_18: upstreamBoolean.optional().meta({
    description: "Only posts marked NSFW (true) or only those not (false). Also 1/0, yes/no, y/n.",
  }),
  spoiler: upstreamBoolean.optional().meta({
    description: "Only spoiler posts (true) or only the others (false). Also 1/0, yes/no, y/n.",
  }),
  link_flair_text: flairText.optional().meta({
    description: "Keyword match on the post's flair (the archive's own keyword search).",
  }),
  author_flair_text: flairText.optional().meta({
    description: "Keyword match on the author's flair (the archive's own keyword search).",
  }),
  url: z
    .string({ error: "must be a URL or its beginning" })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(2000, { error: "must be at most 2000 characters" })
    .optional()
    .meta({ description: "Posts whose `url` starts with this (exactly this with `url_exact=true`)." }),
  url_exact: upstreamBoolean.optional().meta({ description: "Makes `url` an exact match. Default false." }),
  crosspost_parent_id: postId.optional().meta({
    description: "Only crossposts of this post (id with or without t3_).",
  }),
} as const;

/** Listing filters of GET /v1/comments. */
export const COMMENT_FILTERS = {
  link_id: postId.optional().meta({
    description:
      "Only the comments of this post (id with or without t3_): its whole thread as a flat list, paged by the same cursor.",
  }),
  parent_id: parentId.optional().meta({
    description:
      "Only the direct replies to this comment (`t1_…` or bare id), or to this post (`t3_…`: its top-level comments). Empty (`parent_id=`) means top-level comments only.",
  }),
} as const;

/** The names of every filter above: batch mode ignores them, as it ignores the other listing parameters. */
export const POST_FILTER_NAMES = Object.keys(POST_FILTERS);
export const COMMENT_FILTER_NAMES = Object.keys(COMMENT_FILTERS);

/**
 * The upstream query for the filters present in validated listing parameters. The upstream documents
 * `parent_id` as a comment id or empty, so a post's top level (`t3_…`) is sent in its documented form:
 * that post as `link_id` and an empty `parent_id`.
 */
export function upstreamListingFilters(params: Readonly<Record<string, unknown>>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of [...POST_FILTER_NAMES, ...COMMENT_FILTER_NAMES]) {
    const value = params[name];
    if (value !== undefined) query[name] = String(value);
  }
  const parent = query.parent_id;
  if (parent?.startsWith("t3_")) {
    query.link_id = parent.slice(3);
    query.parent_id = "";
  }
  return query;
}

/** A `parent_id` naming a post must name the same post as `link_id`, when both are given. */
export function parentPostConflict(params: { link_id?: string; parent_id?: string }): boolean {
  const parentPost = params.parent_id?.startsWith("t3_") ? params.parent_id.slice(3) : undefined;
  return parentPost !== undefined && params.link_id !== undefined && parentPost !== params.link_id;
}

export const timeBoundParam = z
  .union([z.string(), z.number()], { error: `must be ${TIME_BOUND_HINT}` })
  .transform((raw, ctx) => {
    const parsed = parseTimeBound(raw, nowEpochSeconds());
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: "custom", message: parsed.error });
    return z.NEVER;
  });

export const integerFrom = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

/** Options of GET /v1/subreddits/search beside `q`; `sort_type=name` is the upstream's `subreddit`. */
export const COMMUNITY_SEARCH_OPTIONS = {
  min_subscribers: integerFrom(0, 1_000_000_000).optional().meta({
    description: "Only communities with at least this many subscribers.",
  }),
  max_subscribers: integerFrom(0, 1_000_000_000).optional().meta({
    description: "Only communities with at most this many subscribers.",
  }),
  over18: upstreamBoolean.optional().meta({
    description: "Only NSFW communities (true) or only the others (false). Also 1/0, yes/no, y/n.",
  }),
  sort_type: z
    .enum(["subscribers", "created_utc", "name"], { error: "must be subscribers, created_utc or name" })
    .default("subscribers")
    .meta({ description: "What the matches are ordered by." }),
  sort: z
    .enum(["asc", "desc"], { error: "must be asc or desc" })
    .default("desc")
    .meta({ description: "Order direction." }),
  limit: integerFrom(1, 100)
    .default(10)
    .meta({ description: "How many matches, 1 to 100 (10 unless given)." }),
} as const;
