/**
 * adapter-posts: serves adapter.posts.list and adapter.comments.list in the adapter-posts queue group,
 * so every replica shares the load. A value: connections come in, nothing is read from the environment.
 */
import { QUEUE_GROUPS } from "@rda/contracts";
import { type AdapterDeps, startAdapter } from "@rda/upstream-client";
import { listItems } from "./list-items.ts";

export function startAdapterPosts(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  const { logger } = deps;
  return startAdapter(deps, QUEUE_GROUPS.adapterPosts, {
    listPosts: (client, params) => listItems(client, "post", params, logger),
    listComments: (client, params) => listItems(client, "comment", params, logger),
  });
}
