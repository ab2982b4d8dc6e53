/** adapter-tree: serves adapter.tree.get in the adapter-tree queue group. */
import { type AdapterDeps, type RunningAdapter, startAdapter } from "@rda/adapter-kit";
import { QUEUE_GROUPS } from "@rda/contracts";
import { getCommentTree } from "./get-comment-tree.ts";

export function startAdapterTree(deps: AdapterDeps): Promise<RunningAdapter> {
  return startAdapter(deps, QUEUE_GROUPS.adapterTree, { getCommentTree });
}
