/** adapter-communities: serves adapter.subreddits.search and adapter.subreddits.rules in its queue group. */
import { QUEUE_GROUPS } from "@rda/contracts";
import { type AdapterDeps, startAdapter } from "@rda/upstream-client";
import { getRules } from "./get-rules.ts";
import { searchSubreddits } from "./search-subreddits.ts";

export function startAdapterCommunities(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  return startAdapter(deps, QUEUE_GROUPS.adapterCommunities, {
    searchSubreddits,
    getSubredditRules: getRules,
  });
}
