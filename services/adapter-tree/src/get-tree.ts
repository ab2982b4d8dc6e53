/** adapter.tree.get (spec §4 getCommentTree): one upstream call, the tree converted, not paginated. */
import type { GetCommentTreeParams } from "@rda/contracts";
import { failureReply, okReply, type UpstreamClient, unavailableReply } from "@rda/upstream-client";
import { convertTree } from "./convert-tree.ts";

/**
 * upstream.md §1.7 item 2: start_depth and start_breadth default to 4 upstream, which collapses deep or
 * wide threads before `limit` is reached. A tree of at most 500 comments (our largest limit) can be
 * neither deeper nor wider than 500, so with these values only `limit` cuts.
 */
const UNCUT_DEPTH_AND_BREADTH = 500;

export async function getTree(client: UpstreamClient, params: GetCommentTreeParams): Promise<Uint8Array> {
  const result = await client.get("/api/comments/tree", {
    link_id: params.post_id,
    limit: params.limit,
    start_depth: UNCUT_DEPTH_AND_BREADTH,
    start_breadth: UNCUT_DEPTH_AND_BREADTH,
  });
  if (result.outcome !== "ok") return failureReply(result);
  const nodes = convertTree(result.body.data);
  if (nodes === undefined) return unavailableReply("upstream: the comment tree is not a list of things");
  return okReply(JSON.stringify(nodes), { cursor: null, has_more: false });
}
