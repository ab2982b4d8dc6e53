/** adapter-tree: serves adapter.tree.get in the adapter-tree queue group. */
import { QUEUE_GROUPS } from "@rda/contracts";
import { type AdapterDeps, startAdapter } from "@rda/upstream-client";
import { getTree } from "./get-tree.ts";

export function startAdapterTree(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  return startAdapter(deps, QUEUE_GROUPS.adapterTree, { getCommentTree: getTree });
}
