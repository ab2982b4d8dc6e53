/**
 * adapter.subreddits.search (docs/api.md#subreddit-search, docs/upstream.md#subreddits): name-prefix search, at most 10,
 * mapped to {name ← display_name, subscribers, description ← public_description}.
 */

import { failureReply, type OperationContext, okReply, unavailableReply } from "@rda/adapter-kit";
import type { Community, SearchSubredditsParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";

/** At most 10 matches (docs/api.md#subreddit-search); only the three fields we return are fetched (all are selectable). */
const SEARCH_QUERY = {
  limit: 10,
  sort: "desc",
  sort_type: "subscribers",
  fields: "display_name,subscribers,public_description",
} as const;

export async function searchSubreddits(
  client: UpstreamClient,
  params: SearchSubredditsParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const query = { subreddit_prefix: params.q, ...SEARCH_QUERY };
  const result = await client.get("/api/subreddits/search", query, context);
  if (result.outcome !== "ok") return failureReply(result);
  const rows = result.body.data;
  if (!Array.isArray(rows)) return unavailableReply("upstream: subreddit search data is not a list");
  const communities = rows.flatMap(toCommunity).slice(0, SEARCH_QUERY.limit);
  return okReply(JSON.stringify(communities), { cursor: null, has_more: false });
}

/** Rows without a name are dropped; a missing count reads 0 and a missing description "" (spec types). */
function toCommunity(row: unknown): Community[] {
  if (typeof row !== "object" || row === null) return [];
  const { display_name, subscribers, public_description } = row as Record<string, unknown>;
  if (typeof display_name !== "string") return [];
  return [
    {
      name: display_name,
      subscribers: Number.isInteger(subscribers) ? (subscribers as number) : 0,
      description: typeof public_description === "string" ? public_description : "",
    },
  ];
}
