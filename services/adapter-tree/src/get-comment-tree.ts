/** adapter.tree.get (docs/api.md#endpoints getCommentTree): one upstream call, the tree converted, not paginated. */

import { failureReply, type OperationContext, okReply, unavailableReply } from "@rda/adapter-kit";
import type { GetCommentTreeParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";
import { convertTree } from "./convert-tree.ts";

/**
 * docs/upstream.md#where-our-contract-differs: start_depth and start_breadth default to 4 upstream, which collapses deep or
 * wide threads before `limit` is reached. A tree of at most 500 comments (our largest limit) can be
 * neither deeper nor wider than 500, so with these values only `limit` cuts.
 */
const UNCUT_DEPTH_AND_BREADTH = 500;

export async function getCommentTree(
  client: UpstreamClient,
  params: GetCommentTreeParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const query = {
    // docs/upstream.md#assumptions: the tree may find nothing for a bare id; every example and the
    // upstream's own client send the fullname.
    link_id: `t3_${params.post_id}`,
    limit: params.limit,
    start_depth: UNCUT_DEPTH_AND_BREADTH,
    start_breadth: UNCUT_DEPTH_AND_BREADTH,
  };
  const result = await client.get("/api/comments/tree", query, context);
  if (result.outcome !== "ok") return failureReply(result);
  const nodes = convertTree(result.body.data);
  if (nodes === undefined) return unavailableReply("upstream: the comment tree is not a list of things");
  return okReply(JSON.stringify(nodes), { cursor: null, has_more: false });
}
