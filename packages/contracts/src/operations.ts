/**
 * The seven public operations (docs/api.md#endpoints), one entry each: path, parameters, response data, which
 * `_service` shape it carries, the adapter subject it is served by, its price and its MCP tool.
 */
import { z } from "zod";
import {
  getAccountParamsSchema,
  getCommentTreeParamsSchema,
  getSubredditRulesParamsSchema,
  getUserProfileParamsSchema,
  listCommentsParamsSchema,
  listPostsParamsSchema,
  searchSubredditsParamsSchema,
} from "./params.ts";
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

/** `list`: cursor and has_more in `_service`; `credits`: only the two credit fields (docs/api.md#response-envelope). */
export type ServiceMetaKind = "list" | "credits";

/** The API reference's sections; each operation belongs to one. */
export const OPERATION_TAGS = {
  items: "Posts and comments",
  communities: "Communities",
  users: "Users",
  account: "Account",
} as const;

export interface OperationContract {
  readonly operationId: string;
  readonly tag: (typeof OPERATION_TAGS)[keyof typeof OPERATION_TAGS];
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly params: z.ZodType;
  /** Names of params that travel in the path (`{name}`); the rest are query parameters. */
  readonly pathParams: readonly string[];
  /** Query params that are integers; HTTP sends them as strings. */
  readonly integerParams: readonly string[];
  readonly data: z.ZodType;
  readonly meta: ServiceMetaKind;
  /** The adapter that serves it; null for the account, which billing answers. */
  readonly adapter: AdapterOperation | null;
  readonly credits: 0 | 1;
  readonly mcpTool: string;
  /** Batch mode: when `trigger` is given, these parameters are ignored, so not validated either. */
  readonly batchMode?: { readonly trigger: string; readonly ignores: readonly string[] };
}

/** In batch mode these listing parameters are ignored (docs/api.md#batch-mode). */
const IDS_BATCH_MODE = {
  trigger: "ids",
  ignores: ["subreddit", "author", "after", "before", "sort", "q"],
} as const;

export const OPERATIONS = {
  listPosts: {
    operationId: "listPosts",
    tag: OPERATION_TAGS.items,
    path: "/v1/posts",
    summary: "List posts of a community or author, or fetch posts by id",
    description:
      "Two modes. **Listing** (`subreddit` and/or `author`): a page of posts, newest first by default. To get the next page, pass `_service.cursor` as `before` (sort=desc) or as `after` (sort=asc), and stop when `has_more` is false. A page may hold fewer rows than `limit` while `has_more` is true: rows of one `created_utc` second are never split across pages, so a full page ends before the second its last row shares with the next page (see `limit`). With `q`, the filter applies to each fetched page, so a page may even be empty while `has_more` is true. **Batch** (`ids`): up to 100 posts by id in one call (only the first 100 ids are used); the listing parameters are ignored, `cursor` is null and `has_more` false. 1 credit per call in either mode, whether or not `q` matched.",
    params: listPostsParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(postSchema),
    meta: "list",
    adapter: "listPosts",
    credits: 1,
    mcpTool: "search_posts",
    batchMode: IDS_BATCH_MODE,
  },
  listComments: {
    operationId: "listComments",
    tag: OPERATION_TAGS.items,
    path: "/v1/comments",
    summary: "List comments of a community or author, or fetch comments by id",
    description:
      "Same modes and rules as listPosts, with comment ids and `q` over the body. **Listing**: pass `_service.cursor` as `before` (sort=desc) or `after` (sort=asc) for the next page, until `has_more` is false; a page may hold fewer rows than `limit` while `has_more` is true, because a `created_utc` second is never split across pages. **Batch** (`ids`): only the first 100 ids are used. 1 credit per call.",
    params: listCommentsParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(commentSchema),
    meta: "list",
    adapter: "listComments",
    credits: 1,
    mcpTool: "search_comments",
    batchMode: IDS_BATCH_MODE,
  },
  getCommentTree: {
    operationId: "getCommentTree",
    tag: OPERATION_TAGS.items,
    path: "/v1/comments/tree",
    summary: "Get a post's whole nested comment tree",
    description:
      "One call, not paginated. Parts of the thread cut by `limit` come back as nodes of kind `more` with their comment count, so the true size of a thread can be read even during the hide_score blackout. 1 credit.",
    params: getCommentTreeParamsSchema,
    pathParams: [],
    integerParams: ["limit"],
    data: z.array(commentTreeNodeSchema),
    meta: "list",
    adapter: "getCommentTree",
    credits: 1,
    mcpTool: "get_comment_tree",
  },
  searchSubreddits: {
    operationId: "searchSubreddits",
    tag: OPERATION_TAGS.communities,
    path: "/v1/subreddits/search",
    summary: "Search communities by name prefix",
    description: "At most 10 matches, not paginated. 1 credit.",
    params: searchSubredditsParamsSchema,
    pathParams: [],
    integerParams: [],
    data: z.array(communitySchema),
    meta: "list",
    adapter: "searchSubreddits",
    credits: 1,
    mcpTool: "search_subreddits",
  },
  getSubredditRules: {
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
    credits: 1,
    mcpTool: "get_subreddit_rules",
  },
  getUserProfile: {
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
    credits: 1,
    mcpTool: "get_user_profile",
  },
  getAccount: {
    operationId: "getAccount",
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
    credits: 0,
    mcpTool: "check_credits",
  },
} as const satisfies Record<string, OperationContract>;

export type OperationName = keyof typeof OPERATIONS;
export type OperationParams<N extends OperationName> = z.output<(typeof OPERATIONS)[N]["params"]>;
export type OperationData<N extends OperationName> = z.output<(typeof OPERATIONS)[N]["data"]>;

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
