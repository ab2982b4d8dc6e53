/** adapter-tree: serves adapter.tree.get in the adapter-tree queue group. */
import { OPERATIONS, QUEUE_GROUPS } from "@rda/contracts";
import { serveSubject } from "@rda/service-kit";
import { type AdapterDeps, createAdapterHandler, createUpstreamClient } from "@rda/upstream-client";
import { getTree } from "./get-tree.ts";

export async function startAdapterTree(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  const { nats, subjects, logger } = deps;
  const client = createUpstreamClient({ baseUrl: deps.upstreamUrl, logger, ...deps.upstream });
  const served = serveSubject(nats, {
    subject: subjects.adapter.getCommentTree,
    queue: QUEUE_GROUPS.adapterTree,
    logger,
    handler: createAdapterHandler(OPERATIONS.getCommentTree.params, logger, (params) =>
      getTree(client, params),
    ),
  });
  return {
    async stop() {
      await served.stop();
      await client.close();
    },
  };
}
