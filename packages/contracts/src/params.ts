/**
 * One zod schema per operation's parameters: the validator at the gateway, the TypeScript type, the
 * OpenAPI parameters, the adapter request on NATS and the MCP tool input. Each schema is idempotent:
 * its output parses again to the same value, so an adapter can re-validate what the gateway sends.
 */
import { z } from "zod";
import {
  COMMENT_FILTERS,
  COMMUNITY_SEARCH_OPTIONS,
  POST_FILTERS,
  parentPostConflict,
} from "./archive-params.ts";
import { nowEpochSeconds, parseTimeBound, TIME_BOUND_HINT } from "./dates.ts";
import { KNOWN_FIELDS } from "./fields.ts";
import { type ItemKind, MAX_IDS_PER_BATCH, normaliseItemId } from "./ids.ts";

export const USERNAME_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

const integerBetween = (min: number, max: number, fallback: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` })
    .default(fallback);

/** A listing filter on a community; an `r/` prefix is tolerated. Old communities have 2-letter names. */
export const subredditFilter = z
  .string({ error: "must be a community name" })
  .regex(/^(r\/)?[A-Za-z0-9_]{2,21}$/, {
    error: "must be a community name of 2 to 21 letters, digits or underscores, without r/",
  })
  .transform((name) => name.replace(/^r\//, ""));

export const authorFilter = z
  .string({ error: "must be a username" })
  .regex(/^(u\/)?[A-Za-z0-9_-]{2,64}$/, {
    error: "must be a username of 2 to 64 letters, digits, underscores or hyphens, without u/",
  })
  .transform((name) => name.replace(/^u\//, ""));

const timeBound = z
  .union([z.string(), z.number()], { error: `must be ${TIME_BOUND_HINT}` })
  .transform((raw, ctx) => {
    const parsed = parseTimeBound(raw, nowEpochSeconds());
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: "custom", message: parsed.error });
    return z.NEVER;
  })
  .meta({ description: `Bound on created_utc (exclusive): ${TIME_BOUND_HINT}.` });

export const phraseFilter = z
  .string({ error: "must be a phrase" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });

function idList(kind: ItemKind) {
  const prefix = kind === "post" ? "t3_" : "t1_";
  return z.string({ error: "must be a comma-separated list of ids" }).transform((raw, ctx) => {
    const given = raw.split(",").map((id) => id.trim());
    const bad = given.find((id) => normaliseItemId(id, kind) === undefined);
    if (bad !== undefined) {
      const shown = bad === "" ? "an empty entry" : `'${bad.slice(0, 40)}'`;
      ctx.addIssue({
        code: "custom",
        message: `contains ${shown}, which is not a ${kind} id (base36, optional ${prefix})`,
      });
      return z.NEVER;
    }
    return given
      .slice(0, MAX_IDS_PER_BATCH)
      .map((id) => normaliseItemId(id, kind))
      .join(",");
  });
}

function fieldList(kind: ItemKind) {
  return z.string({ error: "must be a comma-separated list of field names" }).transform((raw, ctx) => {
    const names = [
      ...new Set(
        raw
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      ),
    ];
    const unknown = names.find((name) => !KNOWN_FIELDS[kind].has(name));
    if (names.length === 0 || unknown !== undefined) {
      const why = unknown ? `'${unknown.slice(0, 40)}' is not a ${kind} field` : "it lists no field";
      ctx.addIssue({ code: "custom", message: `is invalid: ${why}` });
      return z.NEVER;
    }
    return names.join(",");
  });
}

function listingParams(kind: ItemKind) {
  const searched = kind === "post" ? "title and selftext" : "body";
  return z
    .strictObject({
      subreddit: subredditFilter.optional().meta({ description: "Community name without r/." }),
      author: authorFilter.optional().meta({ description: "Username without u/." }),
      ids: idList(kind)
        .optional()
        .meta({
          description: `Comma-separated ${kind} ids (batch mode); only the first ${MAX_IDS_PER_BATCH} are used, however many the URL holds (up to its 64 KiB limit; past it, 414). One invalid id fails the whole call with 400. In batch mode subreddit, author, after, before, sort and q are ignored.`,
        }),
      after: timeBound.optional(),
      before: timeBound.optional(),
      limit: integerBetween(1, 100, 25).meta({
        description:
          "Page size, 1 to 100. Rows sharing the last row's created_utc second are never split across pages (the bounds are exclusive): a full page ends before that second, or, when every row shares one second, holds that whole second, which can exceed limit.",
      }),
      sort: z
        .enum(["asc", "desc"], { error: "must be asc or desc" })
        .default("desc")
        .meta({ description: "Order by created_utc." }),
      fields: fieldList(kind).optional().meta({
        description: "Comma-separated allowlist of fields to return; omitted returns the full object.",
      }),
      q: phraseFilter.optional().meta({
        description: `Exact-phrase filter over ${searched} of the fetched page (singular/plural tolerant).`,
      }),
      ...(kind === "post" ? POST_FILTERS : COMMENT_FILTERS),
    })
    .superRefine((params, ctx) => {
      // A post's comments (link_id) or a comment's replies (parent_id) are scope enough; an empty
      // parent_id alone (every top-level comment in the archive) is not.
      const scope = params as { link_id?: string; parent_id?: string };
      const scoped = scope.link_id !== undefined || (scope.parent_id ?? "") !== "";
      if (
        params.subreddit === undefined &&
        params.author === undefined &&
        params.ids === undefined &&
        !scoped
      ) {
        const also = kind === "comment" ? ", link_id or parent_id" : " or ids";
        const names = kind === "comment" ? "subreddit, author, ids" : "subreddit, author";
        ctx.addIssue({ code: "custom", message: `give at least one of ${names}${also}`, path: [] });
      }
      if (parentPostConflict(scope)) {
        ctx.addIssue({ code: "custom", message: "names another post than link_id", path: ["parent_id"] });
      }
      const inListingMode = params.ids === undefined;
      if (
        inListingMode &&
        params.after !== undefined &&
        params.before !== undefined &&
        params.after >= params.before
      ) {
        ctx.addIssue({ code: "custom", message: "must be earlier than before", path: ["after"] });
      }
    });
}

export const listPostsParamsSchema = listingParams("post");
export type ListPostsParams = z.output<typeof listPostsParamsSchema>;
export const listCommentsParamsSchema = listingParams("comment");
export type ListCommentsParams = z.output<typeof listCommentsParamsSchema>;
export type ListingParams = ListPostsParams | ListCommentsParams;

export const getCommentTreeParamsSchema = z.strictObject({
  post_id: z
    .string({ error: "is required: a post id with or without t3_" })
    .transform((raw, ctx) => {
      const id = normaliseItemId(raw, "post");
      if (id !== undefined) return id;
      ctx.addIssue({ code: "custom", message: "must be a post id (base36, optional t3_)" });
      return z.NEVER;
    })
    .meta({ description: "Post id with or without the t3_ prefix." }),
  limit: integerBetween(1, 500, 50).meta({ description: "Maximum comments returned, 1 to 500." }),
});
export type GetCommentTreeParams = z.output<typeof getCommentTreeParamsSchema>;

export const searchSubredditsParamsSchema = z.strictObject({
  ...COMMUNITY_SEARCH_OPTIONS,
  q: z
    .string({ error: "is required: a community name or name prefix" })
    .regex(/^(r\/)?[A-Za-z0-9_]{1,21}$/, {
      error: "must be a community name or prefix: 1 to 21 letters, digits or underscores",
    })
    .transform((name) => name.replace(/^r\//, ""))
    .meta({ description: "Community name or name prefix." }),
});
export type SearchSubredditsParams = z.output<typeof searchSubredditsParamsSchema>;

/** An `r/` prefix is tolerated here as on every other community parameter, so HTTP and MCP agree. */
export const getSubredditRulesParamsSchema = z.strictObject({
  name: z
    .string({ error: "is required" })
    .regex(/^(r\/)?[A-Za-z0-9_]{3,21}$/, {
      error: "must be a community name of 3 to 21 letters, digits or underscores, with or without r/",
    })
    .transform((name) => name.replace(/^r\//, ""))
    .meta({ description: "Community name, with or without r/ (path)." }),
});
export type GetSubredditRulesParams = z.output<typeof getSubredditRulesParamsSchema>;

export const getUserProfileParamsSchema = z.strictObject({
  name: z
    .string({ error: "is required" })
    .regex(USERNAME_PATTERN, { error: "must be 3 to 64 letters, digits, underscores or hyphens" })
    .meta({ description: "Exact username (path)." }),
});
export type GetUserProfileParams = z.output<typeof getUserProfileParamsSchema>;

export const getAccountParamsSchema = z.strictObject({});
