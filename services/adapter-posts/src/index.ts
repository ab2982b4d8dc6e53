/**
 * adapter-posts: serves adapter.posts.list and adapter.comments.list in the adapter-posts queue group,
 * so every replica shares the load. A value: connections come in, nothing is read from the environment.
 */
import { type ItemKind, OPERATIONS, QUEUE_GROUPS } from "@rda/contracts";
import { serveSubject } from "@rda/service-kit";
import { type AdapterDeps, createAdapterHandler, createUpstreamClient } from "@rda/upstream-client";
import { listItems } from "./list-items.ts";

export async function startAdapterPosts(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  const { nats, subjects, logger } = deps;
  const client = createUpstreamClient({ baseUrl: deps.upstreamUrl, logger, ...deps.upstream });
  const serve = (subject: string, operation: "listPosts" | "listComments", kind: ItemKind) =>
    serveSubject(nats, {
      subject,
      queue: QUEUE_GROUPS.adapterPosts,
      logger,
      handler: createAdapterHandler(OPERATIONS[operation].params, logger, (params) =>
        listItems(client, kind, params, logger),
      ),
    });
  const served = [
    serve(subjects.adapter.listPosts, "listPosts", "post"),
    serve(subjects.adapter.listComments, "listComments", "comment"),
  ];
  return {
    async stop() {
      await Promise.all(served.map((subject) => subject.stop()));
      await client.close();
    },
  };
}
