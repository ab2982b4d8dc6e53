/** adapter-users: serves adapter.users.get in the adapter-users queue group. */
import { OPERATIONS, QUEUE_GROUPS } from "@rda/contracts";
import { serveSubject } from "@rda/service-kit";
import { type AdapterDeps, createAdapterHandler, createUpstreamClient } from "@rda/upstream-client";
import { getUser } from "./get-user.ts";

export async function startAdapterUsers(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  const { nats, subjects, logger } = deps;
  const client = createUpstreamClient({ baseUrl: deps.upstreamUrl, logger, ...deps.upstream });
  const served = serveSubject(nats, {
    subject: subjects.adapter.getUserProfile,
    queue: QUEUE_GROUPS.adapterUsers,
    logger,
    handler: createAdapterHandler(OPERATIONS.getUserProfile.params, logger, (params) =>
      getUser(client, params),
    ),
  });
  return {
    async stop() {
      await served.stop();
      await client.close();
    },
  };
}
