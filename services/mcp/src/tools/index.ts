/** The seven tools, listed here so the wiring is greppable (spec §4, MCP endpoint). */
import { checkCredits } from "./check-credits.ts";
import type { ToolDefinition } from "./define-tool.ts";
import { getCommentTree } from "./get-comment-tree.ts";
import { getSubredditRules } from "./get-subreddit-rules.ts";
import { getUserProfile } from "./get-user-profile.ts";
import { searchComments } from "./search-comments.ts";
import { searchPosts } from "./search-posts.ts";
import { searchSubreddits } from "./search-subreddits.ts";

export { registerTool, type ToolCaller, type ToolDefinition } from "./define-tool.ts";

export const TOOLS: readonly ToolDefinition[] = [
  searchPosts,
  searchComments,
  getCommentTree,
  searchSubreddits,
  getSubredditRules,
  getUserProfile,
  checkCredits,
];
