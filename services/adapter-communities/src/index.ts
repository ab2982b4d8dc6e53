/** adapter-communities: serves adapter.subreddits.search and adapter.subreddits.rules in its queue group. */
import { OPERATIONS, QUEUE_GROUPS } from "@rda/contracts";
import { serveSubject } from "@rda/service-kit";
import { type AdapterDeps, createAdapterHandler, createUpstreamClient } from "@rda/upstream-client";
import { getRules } from "./get-rules.ts";
import { searchSubreddits } from "./search-subreddits.ts";

export async function startAdapterCommunities(deps: AdapterDeps): Promise<{ stop(): Promise<void> }> {
  const { nats, subjects, logger } = deps;
  const client = createUpstreamClient({ baseUrl: deps.upstreamUrl, logger, ...deps.upstream });
  const queue = QUEUE_GROUPS.adapterCommunities;
  const served = [
    serveSubject(nats, {
      subject: subjects.adapter.searchSubreddits,
      queue,
      logger,
      handler: createAdapterHandler(OPERATIONS.searchSubreddits.params, logger, (params) =>
        searchSubreddits(client, params),
      ),
    }),
    serveSubject(nats, {
      subject: subjects.adapter.getSubredditRules,
      queue,
      logger,
      handler: createAdapterHandler(OPERATIONS.getSubredditRules.params, logger, (params) =>
        getRules(client, params),
      ),
    }),
  ];
  return {
    async stop() {
      await Promise.all(served.map((subject) => subject.stop()));
      await client.close();
    },
  };
}
