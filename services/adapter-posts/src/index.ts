/**
 * adapter-posts: serves adapter.posts.list, adapter.comments.list and adapter.activity.get (it pages
 * the same listings) in the adapter-posts queue group, so every replica shares the load. A value: connections come in, nothing is read from the environment.
 */
import { type AdapterDeps, type RunningAdapter, startAdapter } from "@rda/adapter-kit";
import { QUEUE_GROUPS } from "@rda/contracts";
import { getActivity } from "./activity.ts";
import { listComments, listPosts } from "./list-posts-and-comments.ts";

export function startAdapterPosts(deps: AdapterDeps): Promise<RunningAdapter> {
  return startAdapter(deps, QUEUE_GROUPS.adapterPosts, { listPosts, listComments, getActivity });
}
