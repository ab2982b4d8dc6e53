/**
 * adapter.users.search (docs/api.md#amendments-to-the-original-contract): the archive's user search, paged by rank. The
 * upstream has no cursor for users, so a page at `offset` asks for the first `offset + limit` users
 * (it ranks up to 1,000 in one answer) and keeps the last `limit`; `_service.cursor` is the rank of
 * the next page's first user.
 */
import { failureReply, type OperationContext, okReply, unavailableReply } from "@rda/adapter-kit";
import { MAX_USER_SEARCH_RANK, type SearchUsersParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";

/** Our names of the orders, and the upstream's (docs/upstream.md#endpoints-we-use). */
const UPSTREAM_SORT_TYPE = { karma: "total_karma", name: "author" } as const;

export async function searchUsers(
  client: UpstreamClient,
  params: SearchUsersParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const ranked = params.offset + params.limit;
  const query = {
    author_prefix: params.author_prefix,
    min_karma: params.min_karma,
    active_since: params.active_since,
    sort: params.sort,
    sort_type: UPSTREAM_SORT_TYPE[params.sort_type],
    limit: ranked,
  };
  const result = await client.get("/api/users/search", query, context);
  if (result.outcome !== "ok") return failureReply(result);
  const rows = result.body.data;
  if (!Array.isArray(rows)) return unavailableReply("upstream: user search data is not a list");
  const page = rows.slice(params.offset, ranked).filter(isProfile);
  // A full answer may have more behind it; a short one is the end of the ranking.
  const hasMore = rows.length >= ranked && ranked < MAX_USER_SEARCH_RANK;
  return okReply(JSON.stringify(page), { cursor: hasMore ? ranked : null, has_more: hasMore });
}

function isProfile(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { author, _meta } = value as Record<string, unknown>;
  return typeof author === "string" && typeof _meta === "object" && _meta !== null;
}
