/**
 * adapter.users.get (docs/api.md#endpoints getUserProfile): exact username, `{user: profile}` or `{user: null}`.
 * Usernames are unique regardless of case on the site, so the match is case-insensitive and the
 * upstream's spelling is returned; a prefix or fuzzy match is never accepted (docs/api.md#endpoints). A user
 * missing from the upstream's index is `user: null`, 200, charged (docs/upstream.md#decisions).
 */

import {
  failureReply,
  type OperationContext,
  okReply,
  unavailableReply,
  withIntegerEpochs,
} from "@rda/adapter-kit";
import type { GetUserProfileParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";

/** `author` is an exact filter upstream; a few rows leave room should it ever match loosely. */
const USER_QUERY = { limit: 5, sort: "desc", sort_type: "total_karma" } as const;

export async function getUserProfile(
  client: UpstreamClient,
  params: GetUserProfileParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const result = await client.get("/api/users/search", { author: params.name, ...USER_QUERY }, context);
  if (result.outcome !== "ok") return failureReply(result);
  const rows = result.body.data;
  if (!Array.isArray(rows)) return unavailableReply("upstream: user search data is not a list");
  const wanted = params.name.toLowerCase();
  const match = rows.find((row) => isProfile(row) && row.author.toLowerCase() === wanted);
  // docs/upstream.md#assumptions: `_meta` times may arrive as numeric strings; the contract answers integers.
  const user = match === undefined ? null : withIntegerEpochs(match as Record<string, unknown>);
  return okReply(JSON.stringify({ user }));
}

function isProfile(value: unknown): value is { author: string } {
  if (typeof value !== "object" || value === null) return false;
  const { author, _meta } = value as Record<string, unknown>;
  return typeof author === "string" && typeof _meta === "object" && _meta !== null;
}
