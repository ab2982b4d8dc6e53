/**
 * What every adapter service is: one upstream client and, for each operation it owns, its subject
 * served in the adapter's queue group (so replicas share the load). Each request is decoded with the
 * operation's own params schema (distrust the wire: the schemas are idempotent, so the gateway's
 * normalised params decode again), and the operation gets a logger bound to the gateway's request id,
 * so one request can be followed across services. `stop()` stops taking requests, lets in-flight ones
 * finish, then closes the upstream pool.
 */
import {
  ADAPTER_PROGRESS,
  type AdapterOperation,
  adapterRequestSchema,
  decodeJson,
  OPERATIONS,
  type OperationParams,
  type Subjects,
} from "@rda/contracts";
import {
  type Logger,
  type NatsConnection,
  Registry,
  type RequestHandler,
  serveSubject,
} from "@rda/service-kit";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamPacer,
} from "@rda/upstream-client";
import { upstreamObserver } from "./adapter-metrics.ts";
import { badRequestReply } from "./adapter-reply.ts";

export interface AdapterDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly upstreamUrl: string;
  readonly logger: Logger;
  readonly upstream?: Pick<
    UpstreamClientOptions,
    "deadlineMs" | "attemptTimeoutMs" | "maxRetries" | "busyWaitMs" | "userAgent"
  >;
  /** The product's shared upstream budget (`createRedisPacer`); none: this adapter is unpaced. */
  readonly pacer?: UpstreamPacer;
  /** Where the upstream metrics go (the process's registry); a private one when not given. */
  readonly registry?: Registry;
}

export interface OperationContext {
  /** The gateway's id of the request this work serves. */
  readonly requestId: string;
  /** The operation being served, the label of its upstream metrics. */
  readonly operation: AdapterOperation;
  /** Carries `request_id` on every line. */
  readonly logger: Logger;
}

/** Runs one operation against the upstream and returns the framed reply. */
export type OperationWork<N extends AdapterOperation> = (
  client: UpstreamClient,
  params: OperationParams<N>,
  context: OperationContext,
) => Promise<Uint8Array>;

export type AdapterOperations = { readonly [N in AdapterOperation]?: OperationWork<N> };

export interface RunningAdapter {
  stop(): Promise<void>;
}

export type StartAdapter = (deps: AdapterDeps) => Promise<RunningAdapter>;

export async function startAdapter(
  deps: AdapterDeps,
  queue: string,
  operations: AdapterOperations,
): Promise<RunningAdapter> {
  const { nats, subjects, logger } = deps;
  const observer = upstreamObserver(deps.registry ?? new Registry(), queue);
  const client = createUpstreamClient({
    baseUrl: deps.upstreamUrl,
    logger,
    observer,
    pacer: deps.pacer,
    ...deps.upstream,
  });
  const served = Object.entries(operations).map(([name, work]) => {
    const operation = name as AdapterOperation;
    const handler = operationHandler(operation, work as OperationWork<AdapterOperation>, client, logger);
    // A long upstream call tells the gateway, every ADAPTER_PROGRESS.everyMs, that this replica lives.
    const progressEveryMs = ADAPTER_PROGRESS.everyMs;
    return serveSubject(nats, {
      subject: subjects.adapter[operation],
      queue,
      logger,
      handler,
      progressEveryMs,
    });
  });
  return {
    async stop() {
      await Promise.all(served.map((subject) => subject.stop()));
      await client.close();
    },
  };
}

function operationHandler(
  operation: AdapterOperation,
  work: OperationWork<AdapterOperation>,
  client: UpstreamClient,
  logger: Logger,
): RequestHandler {
  const requestSchema = adapterRequestSchema(OPERATIONS[operation].params);
  return async (payload) => {
    const request = decodeJson(payload, requestSchema);
    if (!request.ok) {
      logger.warn({ operation, problem: request.error }, "adapter request refused");
      return badRequestReply(request.error.replace(/^params\./, ""));
    }
    const { request_id: requestId, params } = request.value as { request_id: string; params: never };
    return work(client, params, requestContext(logger, operation, requestId));
  };
}

/** The child logger is made only when the operation logs, which most requests never do. */
function requestContext(logger: Logger, operation: AdapterOperation, requestId: string): OperationContext {
  let child: Logger | undefined;
  return {
    requestId,
    operation,
    get logger() {
      child ??= logger.child({ request_id: requestId });
      return child;
    },
  };
}
