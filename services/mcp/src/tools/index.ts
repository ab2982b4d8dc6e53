/** The data tools, listed here so the wiring is greppable. */
import { checkCredits } from "./check-credits.ts";
import { prepareTool, type ReadyTool, type ToolDefinition } from "./define-tool.ts";
import { getActivity } from "./get-activity.ts";
import { getCommentTree } from "./get-comment-tree.ts";
import { getSubredditRules } from "./get-subreddit-rules.ts";
import { getUserProfile } from "./get-user-profile.ts";
import { searchComments } from "./search-comments.ts";
import { searchPosts } from "./search-posts.ts";
import { searchSubreddits } from "./search-subreddits.ts";
import { searchUsers } from "./search-users.ts";

export type { ReadyTool, ToolArgs, ToolDefinition } from "./define-tool.ts";
export { portableJsonSchema } from "./json-schema.ts";
export { createKeyRates, type KeyRates } from "./key-rates.ts";

export const TOOLS: readonly ToolDefinition[] = [
  searchPosts,
  searchComments,
  getCommentTree,
  searchSubreddits,
  getSubredditRules,
  getUserProfile,
  searchUsers,
  getActivity,
  checkCredits,
];

export interface ToolCatalog {
  readonly budgetBytes: number;
  readonly tools: readonly ReadyTool[];
  readonly byName: ReadonlyMap<string, ReadyTool>;
}

/** Every tool's listing (schemas included) computed once, for a process whose results fit `budgetBytes`. */
export function buildToolCatalog(budgetBytes: number): ToolCatalog {
  const tools = TOOLS.map((definition) => prepareTool(definition, budgetBytes));
  return { budgetBytes, tools, byName: new Map(tools.map((tool) => [tool.definition.name, tool])) };
}
