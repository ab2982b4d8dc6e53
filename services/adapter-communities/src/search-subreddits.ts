/**
 * adapter.subreddits.search (docs/api.md#subreddit-search, docs/upstream.md#subreddits): name-prefix
 * search with the archive's own options (subscribers, NSFW, order), 10 matches unless `limit` says
 * otherwise, mapped to {name ← display_name, subscribers, description ← public_description} plus the
 * community's title, creation time and `_meta` counts where the archive has them.
 */

import { failureReply, type OperationContext, okReply, unavailableReply } from "@rda/adapter-kit";
import type { Community, SearchSubredditsParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";

/** The upstream names the order by name `subreddit` (docs/upstream.md#endpoints-we-use). */
const UPSTREAM_SORT_TYPE = { subscribers: "subscribers", created_utc: "created_utc", name: "subreddit" };

export async function searchSubreddits(
  client: UpstreamClient,
  params: SearchSubredditsParams,
  context: OperationContext,
): Promise<Uint8Array> {
  // No `fields`: how the upstream projects `_meta` is not documented, so whole objects are fetched.
  const query = {
    subreddit_prefix: params.q,
    limit: params.limit,
    sort: params.sort,
    sort_type: UPSTREAM_SORT_TYPE[params.sort_type],
    min_subscribers: params.min_subscribers,
    max_subscribers: params.max_subscribers,
    over18: params.over18,
  };
  const result = await client.get("/api/subreddits/search", query, context);
  if (result.outcome !== "ok") return failureReply(result);
  const rows = result.body.data;
  if (!Array.isArray(rows)) return unavailableReply("upstream: subreddit search data is not a list");
  const communities = rows.flatMap(toCommunity).slice(0, params.limit);
  return okReply(JSON.stringify(communities), { cursor: null, has_more: false });
}

/** Rows without a name are dropped; a missing count reads 0 and a missing description "" (spec types). */
function toCommunity(row: unknown): Community[] {
  if (typeof row !== "object" || row === null) return [];
  const { display_name, subscribers, public_description, title, created_utc, _meta } = row as Record<
    string,
    unknown
  >;
  if (typeof display_name !== "string") return [];
  const community: Community = {
    name: display_name,
    subscribers: Number.isInteger(subscribers) ? (subscribers as number) : 0,
    description: typeof public_description === "string" ? public_description : "",
  };
  if (typeof title === "string") community.title = title;
  const created = wholeNumber(created_utc);
  if (created !== undefined) community.created_utc = created;
  const counts = countsOf(_meta);
  if (counts !== undefined) community._meta = counts;
  return [community];
}

/** Old objects may carry numbers (epochs, counts) as numeric strings; both forms are read. */
function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d{1,12}(\.\d+)?$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? Math.floor(number) : undefined;
}

function countsOf(meta: unknown): Community["_meta"] {
  if (typeof meta !== "object" || meta === null) return undefined;
  const { num_posts, num_comments } = meta as Record<string, unknown>;
  const counts: NonNullable<Community["_meta"]> = {};
  const posts = wholeNumber(num_posts);
  const comments = wholeNumber(num_comments);
  if (posts !== undefined) counts.num_posts = posts;
  if (comments !== undefined) counts.num_comments = comments;
  return Object.keys(counts).length > 0 ? counts : undefined;
}
