/**
 * Every route the gateway serves, in one place (STYLE.md §6). The e2e tests check each of them
 * against the OpenAPI document.
 */
import type { GatewayRoute } from "./http/route.ts";
import { getAccount } from "./routes/v1/get-account.ts";
import { getCommentTree } from "./routes/v1/get-comment-tree.ts";
import { getSubredditRules } from "./routes/v1/get-subreddit-rules.ts";
import { getUserProfile } from "./routes/v1/get-user-profile.ts";
import { listComments } from "./routes/v1/list-comments.ts";
import { listPosts } from "./routes/v1/list-posts.ts";
import { searchSubreddits } from "./routes/v1/search-subreddits.ts";

export { MCP_PREFIX } from "./routes/mcp-proxy.ts";
export { SYSTEM_PATHS } from "./routes/system.ts";

/** The seven public endpoints of spec §4. */
export const API_ROUTES: readonly GatewayRoute[] = [
  listPosts,
  listComments,
  getCommentTree,
  searchSubreddits,
  getSubredditRules,
  getUserProfile,
  getAccount,
];
