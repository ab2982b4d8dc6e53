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
  type UpstreamPriority,
} from "@rda/contracts";
import {
  answerRequestHash,
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
import { type AnswerSeen, collectAnswers, type StampedReply, stampAnswerMeta } from "./answer-meta.ts";

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
  /** The response cache shared by every replica (`createRedisCacheStore`); none: no cache. */
  readonly cache?: UpstreamClientOptions["cache"];
}

/**
 * What an operation passes to each `client.get` as it is (its call options): who it serves, the
 * caller's bound on the answer's age, and where the age of each answer is noted, so the reply can say
 * how old it is without the operation doing anything about it.
 */
export interface OperationContext {
  /** The gateway's id of the request this work serves. */
  readonly requestId: string;
  /** The operation being served, the label of its upstream metrics. */
  readonly operation: AdapterOperation;
  /** Carries `request_id` on every line. */
  readonly logger: Logger;
  /** The caller's `Cache-Control` bound in seconds (0: `no-cache`); none: the data's own bound. */
  readonly maxAgeS: number | undefined;
  /** Who the request serves, for its share of the upstream budget. */
  readonly priority: UpstreamPriority;
  /** The account it serves, for its fair share of that class (docs/upstream.md#fair-shares). */
  readonly account: string | undefined;
  /** Only from the shared cache: a call whose answer is not there ends `rate_limited`, unsent. */
  readonly cacheOnly: boolean;
  /** When the request arrived: all its upstream calls share one deadline from it (`CallOptions`). */
  readonly startedAtMs: number;
  /**
   * Notes each upstream answer behind the reply: its `fetched_at_ms` is the oldest, its `max_age_s`
   * the shortest bound, its `source` the costliest (answer-meta.ts).
   */
  onAnswer(answer: AnswerSeen): void;
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
    cache: deps.cache,
    ...deps.upstream,
  });
  const served = Object.entries(operations).map(([name, work]) => {
    const operation = name as AdapterOperation;
    const handler = operationHandler(
      operation,
      work as OperationWork<AdapterOperation>,
      client,
      deps.cache,
      logger,
    );
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
  cache: AdapterDeps["cache"],
  logger: Logger,
): RequestHandler {
  const requestSchema = adapterRequestSchema(OPERATIONS[operation].params);
  return async (payload) => {
    const request = decodeJson(payload, requestSchema);
    if (!request.ok) {
      logger.warn({ operation, problem: request.error }, "adapter request refused");
      return badRequestReply(request.error.replace(/^params\./, ""));
    }
    const { params, ...call } = request.value as AdapterCall & { params: never };
    const answers = collectAnswers();
    const context = requestContext(logger, operation, call, answers.note);
    const reply = stampAnswerMeta(await work(client, params, context), answers.meta());
    await keepAnswer(cache, operation, params, reply, logger);
    return reply.frame;
  };
}

/**
 * Keeps an ok answer every upstream answer of which may be served again, for as long as the
 * shortest of them may, so the gateway serves the same request again in one read
 * (docs/upstream.md#cached-answers-and-the-budget). Awaited, so the next identical request finds it;
 * a cache that cannot keep it costs only the log line.
 */
async function keepAnswer(
  cache: AdapterDeps["cache"],
  operation: AdapterOperation,
  params: unknown,
  reply: StampedReply,
  logger: Logger,
): Promise<void> {
  const ttlMs = reply.servableUntilMs === undefined ? 0 : reply.servableUntilMs - Date.now();
  if (cache === undefined || ttlMs <= 0) return;
  await cache.store
    .storeAnswer(answerRequestHash(operation, params), reply.frame, ttlMs)
    .catch((error: unknown) =>
      logger.warn({ err: String(error) }, "response cache: could not keep an answer"),
    );
}

interface AdapterCall {
  readonly request_id: string;
  readonly max_age_s?: number;
  readonly priority?: UpstreamPriority;
  readonly cache_only?: boolean;
  readonly account?: string;
}

/** The child logger is made only when the operation logs, which most requests never do. */
function requestContext(
  logger: Logger,
  operation: AdapterOperation,
  call: AdapterCall,
  noteAnswer: (answer: AnswerSeen) => void,
): OperationContext {
  let child: Logger | undefined;
  const requestId = call.request_id;
  return {
    requestId,
    operation,
    maxAgeS: call.max_age_s,
    priority: call.priority ?? "interactive",
    account: call.account,
    startedAtMs: Date.now(),
    cacheOnly: call.cache_only ?? false,
    onAnswer: noteAnswer,
    get logger() {
      child ??= logger.child({ request_id: requestId });
      return child;
    },
  };
}
