/** adapter-communities: serves adapter.subreddits.search and adapter.subreddits.rules in its queue group. */
import { type AdapterDeps, type RunningAdapter, startAdapter } from "@rda/adapter-kit";
import { QUEUE_GROUPS } from "@rda/contracts";
import { getSubredditRules } from "./get-subreddit-rules.ts";
import { searchSubreddits } from "./search-subreddits.ts";

export function startAdapterCommunities(deps: AdapterDeps): Promise<RunningAdapter> {
  return startAdapter(deps, QUEUE_GROUPS.adapterCommunities, { searchSubreddits, getSubredditRules });
}
