/**
 * The nine data and account routes (docs/api.md#endpoints), each a PublicRoute (public-routes.ts)
 * declared once here, with what the data routes add: the query's integer parameters, the response
 * data and which `_service` shape it carries, the adapter subject it is served by and its MCP tool.
 */
import { z } from "zod";
import { COMMENT_FILTER_NAMES, POST_FILTER_NAMES } from "./archive-params.ts";
import { activitySchema, userSearchDataSchema } from "./archive-responses.ts";
import { getActivityParamsSchema, searchUsersParamsSchema } from "./archive-search-params.ts";
import { ACCOUNT_ERROR_CODES, DATA_ERROR_CODES } from "./errors.ts";
import {
  getAccountParamsSchema,
  getCommentTreeParamsSchema,
  getSubredditRulesParamsSchema,
  getUserProfileParamsSchema,
  listCommentsParamsSchema,
  listPostsParamsSchema,
  searchSubredditsParamsSchema,
} from "./params.ts";
import type { PublicRoute, RouteAnswer, ServiceMetaKind } from "./public-routes.ts";
import { commentSchema, commentTreeNodeSchema, postSchema } from "./reddit-objects.ts";
import {
  accountSchema,
  communitySchema,
  creditEnvelopeSchema,
  listEnvelopeSchema,
  subredditRulesSchema,
  userProfileResultSchema,
} from "./responses.ts";
import type { AdapterOperation } from "./subjects.ts";

export type { ServiceMetaKind } from "./public-routes.ts";

/** The API reference's sections; each operation belongs to one. */
export const OPERATION_TAGS = {
  items: "Posts and comments",
  communities: "Communities",
  users: "Users",
  activity: "Activity",
  account: "Account",
} as const;

export interface OperationContract extends PublicRoute {
  readonly method: "GET";
  readonly tag: (typeof OPERATION_TAGS)[keyof typeof OPERATION_TAGS];
  readonly body: null;
  /** Query params that are integers; HTTP sends them as strings. */
  readonly integerParams: readonly string[];
  /** The 200 answer's `data`, in the `_service` envelope `meta` names. */
  readonly data: z.ZodType;
  readonly meta: ServiceMetaKind;
  /** The adapter that serves it; null for the account, which billing answers. */
  readonly adapter: AdapterOperation | null;
  readonly mcpTool: string;
  /** Batch mode: when `trigger` is given, these parameters are ignored, so not validated either. */
  readonly batchMode?: { readonly trigger: string; readonly ignores: readonly string[] };
}

/** In batch mode these listing parameters (and the filters) are ignored (docs/api.md#batch-mode). */
const IDS_BATCH_MODE = {
  trigger: "ids",
  ignores: ["subreddit", "author", "after", "before", "sort", "q"],
} as const;
const POSTS_BATCH_MODE = { trigger: "ids", ignores: [...IDS_BATCH_MODE.ignores, ...POST_FILTER_NAMES] };
const COMMENTS_BATCH_MODE = { trigger: "ids", ignores: [...IDS_BATCH_MODE.ignores, ...COMMENT_FILTER_NAMES] };

/**
 * A read of the archive through an adapter: charged, answered from the shared cache when it can be,
 * so it takes `Idempotency-Key` and `Cache-Control` and spends the key's bucket and, on a miss, the
 * upstream budget.
 */
const ARCHIVE_READ = {
  method: "GET",
  body: null,
  errors: DATA_ERROR_CODES,
  credits: 1,
  idempotent: true,
  rateLimit: "key_and_upstream",
} as const;

/** The route with its one answer: its data in the `_service` envelope its kind carries. */
function operation<const D extends Omit<OperationContract, "answers">>(
  declared: D,
): D & { readonly answers: readonly RouteAnswer[] } {
  const costs = `Costs ${declared.credits} credit${declared.credits === 1 ? "" : "s"}.`;
  const answer: RouteAnswer = {
    status: 200,
    description: `Success. ${costs}`,
    data: declared.data,
    envelope: declared.meta,
  };
  return { ...declared, answers: [answer] };
}

export const OPERATIONS = {
  listPosts: operation({
    ...ARCHIVE_READ,
    operationId: "listPosts",
    tag: OPERATION_TAGS.items,
    path: "/v1/posts",
    summary: "List posts of a community or author, or fetch posts by id",
    description:
      "Two modes. **Listing** (`subreddit` and/or `author`): a page of posts, newest first by default. To get the next page, pass `_service.cursor` as `before` (sort=desc) or as `after` (sort=asc), and stop when `has_more` is false. Listing filters (the archive's own): `over_18`, `spoiler`, `link_flair_text`, `author_flair_text`, `url` (prefix, or exact with `url_exact`) and `crosspost_parent_id`. A page may hold fewer rows than `limit` while `has_more` is true: rows of one `created_utc` second are never split across pages, so a full page ends before the second its last row shares with the next page (see `limit`). With `q`, the filter applies to each fetched page, so a page may even be empty while `has_more` is true. **Batch** (`ids`): up to 100 posts by id in one call (only the first 100 ids are used); the listing parameters are ignored, `cursor` is null and `has_more` false. 1 credit per call in either mode, whether or not `q` matched.",
    params: listPostsParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(postSchema),
    meta: "list",
    adapter: "listPosts",
    mcpTool: "search_posts",
    batchMode: POSTS_BATCH_MODE,
  }),
  listComments: operation({
    ...ARCHIVE_READ,
    operationId: "listComments",
    tag: OPERATION_TAGS.items,
    path: "/v1/comments",
    summary: "List comments of a community or author, or fetch comments by id",
    description:
      "Same modes and rules as listPosts, with comment ids and `q` over the body. `link_id` lists one post's comments as a flat list, paged by the same cursor, without `subreddit` or `author`; `parent_id` keeps the replies to one comment, or with an empty value (`parent_id=`) top-level comments only. **Listing**: pass `_service.cursor` as `before` (sort=desc) or `after` (sort=asc) for the next page, until `has_more` is false; a page may hold fewer rows than `limit` while `has_more` is true, because a `created_utc` second is never split across pages. **Batch** (`ids`): only the first 100 ids are used. 1 credit per call.",
    params: listCommentsParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(commentSchema),
    meta: "list",
    adapter: "listComments",
    mcpTool: "search_comments",
    batchMode: COMMENTS_BATCH_MODE,
  }),
  getCommentTree: operation({
    ...ARCHIVE_READ,
    operationId: "getCommentTree",
    tag: OPERATION_TAGS.items,
    path: "/v1/comments/tree",
    summary: "Get a post's whole nested comment tree",
    description:
      "One call, not paginated. Parts of the thread cut by `limit` come back as nodes of kind `more`, with the ids of the comments left out directly under their parent and the upstream's count, passed on as sent. 1 credit.",
    params: getCommentTreeParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(commentTreeNodeSchema),
    meta: "list",
    adapter: "getCommentTree",
    mcpTool: "get_comment_tree",
  }),
  searchSubreddits: operation({
    ...ARCHIVE_READ,
    operationId: "searchSubreddits",
    tag: OPERATION_TAGS.communities,
    path: "/v1/subreddits/search",
    summary: "Search communities by name prefix",
    description:
      "10 matches unless `limit` says otherwise (up to 100), not paginated. Filter by subscribers and NSFW, and order by subscribers, creation time or name. 1 credit.",
    params: searchSubredditsParamsSchema,
    pathParams: [],
    integerParams: ["limit", "min_subscribers", "max_subscribers"],
    data: z.array(communitySchema),
    meta: "list",
    adapter: "searchSubreddits",
    mcpTool: "search_subreddits",
  }),
  getSubredditRules: operation({
    ...ARCHIVE_READ,
    operationId: "getSubredditRules",
    tag: OPERATION_TAGS.communities,
    path: "/v1/subreddits/{name}/rules",
    summary: "Get a community's rules",
    description: "1 credit.",
    params: getSubredditRulesParamsSchema,
    pathParams: ["name"],
    integerParams: [],
    data: subredditRulesSchema,
    meta: "credits",
    adapter: "getSubredditRules",
    mcpTool: "get_subreddit_rules",
  }),
  getUserProfile: operation({
    ...ARCHIVE_READ,
    operationId: "getUserProfile",
    tag: OPERATION_TAGS.users,
    path: "/v1/users/{name}",
    summary: "Get a user's profile aggregates by exact username",
    description:
      "A username with no matching account answers 200 with `user: null` and is still charged. 1 credit.",
    params: getUserProfileParamsSchema,
    pathParams: ["name"],
    integerParams: [],
    data: userProfileResultSchema,
    meta: "credits",
    adapter: "getUserProfile",
    mcpTool: "get_user_profile",
  }),
  searchUsers: operation({
    ...ARCHIVE_READ,
    operationId: "searchUsers",
    tag: OPERATION_TAGS.users,
    path: "/v1/users/search",
    summary: "Search users by name prefix, karma and recent activity",
    description:
      "Users with their profile aggregates, ordered by archived karma (default) or by name. Paged by rank: `_service.cursor` is the rank of the next page's first user; pass it as `offset`, and stop when `has_more` is false. The archive ranks at most the first 1,000 users of one search. 1 credit per page.",
    params: searchUsersParamsSchema,
    pathParams: [],
    integerParams: ["limit", "offset", "min_karma"],
    data: userSearchDataSchema,
    meta: "list",
    adapter: "searchUsers",
    mcpTool: "search_users",
  }),
  getActivity: operation({
    ...ARCHIVE_READ,
    operationId: "getActivity",
    tag: OPERATION_TAGS.activity,
    path: "/v1/activity",
    summary: "Count posts or comments per hour, day or week",
    description:
      "How many posts or comments a community or an author (or both) made in each hour, day or week of a window, optionally only those containing a phrase. Without `q` the archive's own counts are used (`source: aggregate`); with `q` the window's items are read with one upstream request (one page) and the matching ones counted (`source: search`), which works for at most 100 items of the community or author in the window (more is a 400, not charged: narrow the window). One request never makes more upstream requests than the one credit it pays for: an empty page is not asked again (`empty_unconfirmed: true`; ask again to confirm), and a failed read is not retried (a 502, refunded). Buckets less than 36 hours old are marked `settled: false`. 1 credit.",
    params: getActivityParamsSchema,
    pathParams: [],
    integerParams: [],
    data: activitySchema,
    meta: "credits",
    adapter: "getActivity",
    mcpTool: "get_activity",
  }),
  getAccount: operation({
    operationId: "getAccount",
    method: "GET",
    tag: OPERATION_TAGS.account,
    path: "/v1/account",
    summary: "Get the key's credit balance and rate limit",
    description:
      "Free (0 credits), no upstream request, balance read fresh; still authenticated and rate limited by the key's own limit. While a dependency of the service is briefly down it answers 503 with `Retry-After` (never charged).",
    params: getAccountParamsSchema,
    pathParams: [],
    integerParams: [],
    data: accountSchema,
    meta: "credits",
    adapter: null,
    body: null,
    errors: ACCOUNT_ERROR_CODES,
    credits: 0,
    // Free: nothing to replay, and billing reads the balance fresh; the key's bucket only.
    idempotent: false,
    rateLimit: "key",
    mcpTool: "check_credits",
  }),
} satisfies Record<string, OperationContract>;

export type OperationName = keyof typeof OPERATIONS;
export type OperationParams<N extends OperationName> = z.output<(typeof OPERATIONS)[N]["params"]>;

const envelopeSchemas = new Map<OperationName, z.ZodType>();

/** The 200 body schema of an operation: its data in the `_service` envelope its kind carries. */
export function envelopeSchemaOf(operation: OperationName): z.ZodType {
  let schema = envelopeSchemas.get(operation);
  if (!schema) {
    const contract: OperationContract = OPERATIONS[operation];
    schema =
      contract.meta === "list" ? listEnvelopeSchema(contract.data) : creditEnvelopeSchema(contract.data);
    envelopeSchemas.set(operation, schema);
  }
  return schema;
}
