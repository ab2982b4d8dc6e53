/**
 * What every adapter service is: one upstream client and, for each operation it owns, its subject
 * served in the adapter's queue group (so replicas share the load), with the request parsed by the
 * operation's own params schema. `stop()` stops taking requests, lets in-flight ones finish, then
 * closes the upstream pool.
 */
import { type AdapterOperation, OPERATIONS, type OperationParams } from "@rda/contracts";
import { serveSubject } from "@rda/service-kit";
import type { AdapterDeps } from "./adapter-main.ts";
import { createAdapterHandler } from "./adapter-reply.ts";
import { createUpstreamClient } from "./client.ts";
import type { UpstreamClient } from "./types.ts";

/** Runs one operation against the upstream and returns the framed reply. */
export type OperationWork<N extends AdapterOperation> = (
  client: UpstreamClient,
  params: OperationParams<N>,
) => Promise<Uint8Array>;

export type AdapterWork = { readonly [N in AdapterOperation]?: OperationWork<N> };

export async function startAdapter(
  deps: AdapterDeps,
  queue: string,
  work: AdapterWork,
): Promise<{ stop(): Promise<void> }> {
  const { nats, subjects, logger } = deps;
  const client = createUpstreamClient({ baseUrl: deps.upstreamUrl, logger, ...deps.upstream });
  const served = Object.entries(work).map(([operation, run]) =>
    serveSubject(nats, {
      subject: subjects.adapter[operation as AdapterOperation],
      queue,
      logger,
      handler: createAdapterHandler(OPERATIONS[operation as AdapterOperation].params, logger, (params) =>
        (run as OperationWork<AdapterOperation>)(client, params as never),
      ),
    }),
  );
  return {
    async stop() {
      await Promise.all(served.map((subject) => subject.stop()));
      await client.close();
    },
  };
}
