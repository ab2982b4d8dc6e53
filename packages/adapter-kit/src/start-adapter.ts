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
  type AdapterReplyMeta,
  adapterRequestSchema,
  decodeAdapterReply,
  decodeJson,
  encodeAdapterReply,
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
  type FetchSource,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamFailure,
  type UpstreamPacer,
} from "@rda/upstream-client";
import { upstreamObserver } from "./adapter-metrics.ts";

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
  /** When the request arrived: all its upstream calls share one deadline from it (`CallOptions`). */
  readonly startedAtMs: number;
  /**
   * Notes each upstream answer behind the reply: its `fetched_at_ms` is the oldest, its `max_age_s`
   * the shortest bound, its `source` the costliest (`collectAnswers` below).
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
    onAnswer: noteAnswer,
    get logger() {
      child ??= logger.child({ request_id: requestId });
      return child;
    },
  };
}

/**
 * What a reply says of the upstream answers it was built from (contracts' `adapterReplyMetaSchema`):
 * when the oldest was produced (the caller's `Age`), how long the reply may be served again (the
 * shortest bound of them all, none if any may not be), and the costliest way one was had
 * (`upstream` over `joined` over `cache`: the gateway's path metrics).
 */
export interface AnswerSeen {
  readonly fetchedAtMs: number;
  readonly source: FetchSource;
  /** How long after `fetchedAtMs` it may be served again; undefined: never. */
  readonly maxAgeS: number | undefined;
}

export interface AnswersMeta {
  readonly fetchedAtMs: number;
  readonly maxAgeS: number | undefined;
  readonly source: FetchSource;
}

const COST: Readonly<Record<FetchSource, number>> = { cache: 0, joined: 1, upstream: 2 };

export function collectAnswers(): { note(answer: AnswerSeen): void; meta(): AnswersMeta | undefined } {
  let meta: AnswersMeta | undefined;
  let servable = true;
  return {
    note(answer) {
      servable &&= answer.maxAgeS !== undefined;
      if (meta === undefined) {
        meta = answer;
        return;
      }
      const bounds = [meta.maxAgeS, answer.maxAgeS].filter((bound) => bound !== undefined);
      meta = {
        fetchedAtMs: Math.min(meta.fetchedAtMs, answer.fetchedAtMs),
        maxAgeS: bounds.length > 0 ? Math.min(...bounds) : undefined,
        source: COST[answer.source] > COST[meta.source] ? answer.source : meta.source,
      };
    },
    meta: () => meta && { ...meta, maxAgeS: servable ? meta.maxAgeS : undefined },
  };
}

export interface StampedReply {
  readonly frame: Uint8Array;
  /** Epoch ms until which this ok reply may be served again; undefined: not at all. */
  readonly servableUntilMs: number | undefined;
}

/**
 * An ok reply with its answers' meta in its head; other replies, and replies built from no upstream
 * answer, as they are. Only the one-line head is rewritten; the data bytes stay.
 */
export function stampAnswerMeta(frame: Uint8Array, answers: AnswersMeta | undefined): StampedReply {
  const decoded = decodeAdapterReply(frame);
  if (answers === undefined || !decoded.ok || decoded.value.meta.outcome !== "ok")
    return { frame, servableUntilMs: undefined };
  const fetchedAtMs = Math.floor(answers.fetchedAtMs);
  const meta: AdapterReplyMeta = {
    ...decoded.value.meta,
    fetched_at_ms: fetchedAtMs,
    max_age_s: answers.maxAgeS,
    source: answers.source,
  };
  const servableUntilMs = answers.maxAgeS === undefined ? undefined : fetchedAtMs + answers.maxAgeS * 1000;
  return { frame: encodeAdapterReply(meta, decoded.value.data ?? new Uint8Array()), servableUntilMs };
}

/**
 * The replies an adapter operation returns, framed for the gateway (contracts/adapter-frame.ts). An
 * expected failure is a reply outcome the gateway maps to 400, 429 global or 502; only a bug throws.
 */
/**
 * List operations give `cursor` and `has_more`; the others give nothing beyond the data. `data` is
 * JSON text, or the upstream's own bytes of it when they pass through unchanged.
 */
export function okReply(
  data: string | Uint8Array,
  list?: { cursor: number | null; has_more: boolean },
): Uint8Array {
  const meta: AdapterReplyMeta = list ? { outcome: "ok", ...list } : { outcome: "ok" };
  return encodeAdapterReply(meta, data);
}

export function badRequestReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "bad_request", message });
}

/** The request's window held more than it may read (docs/api.md#activity): ours, not the upstream's refusal. */
export function tooLargeReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "too_large", message });
}

export function unavailableReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "unavailable", message });
}

/** Maps a classified upstream failure to the reply outcome the gateway turns into 400/429/502. */
export function failureReply(failure: UpstreamFailure): Uint8Array {
  if (failure.outcome === "rate_limited" || failure.outcome === "budget_spent") {
    const { outcome, message, retry_after_seconds } = failure;
    return encodeAdapterReply({ outcome, message, retry_after_seconds });
  }
  return encodeAdapterReply({ outcome: failure.outcome, message: failure.message });
}

/**
 * Epoch fields as integers, whatever the upstream sent (docs/upstream.md#assumptions). The upstream's
 * dumps store `created_utc` of old items (comments to 2014, posts to mid-2015) as a numeric string, and
 * nothing says the API converts it; the contract promises integers. So every epoch field that arrives as
 * a numeric string, or as a number with a fraction, is answered as whole epoch seconds.
 *
 * An epoch field is `created_utc`, `created`, `retrieved_on` or `edited` on the object, or any `_meta` key
 * ending in `_on`, `_at` or `_utc` (`retrieved_2nd_on`, `earliest_post_at`, …). Other keys are left alone,
 * and a value that is not a number in either form (`edited: false`, null) passes through.
 *
 * Objects are never changed in place: a coalesced upstream answer may be shared by several requests.
 */
const TOP_LEVEL_EPOCHS = ["created_utc", "created", "retrieved_on", "edited"] as const;
const META_EPOCH = /_(on|at|utc)$/;
const NUMERIC_TEXT = /^\s*\d+(\.\d+)?\s*$/;

type Row = Readonly<Record<string, unknown>>;

/** Whole epoch seconds from an integer, a fractional number or a numeric string; undefined otherwise. */
export function epochSeconds(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? Math.floor(value) : undefined;
  if (typeof value === "string" && NUMERIC_TEXT.test(value)) return Math.floor(Number(value));
  return undefined;
}

/** True when the value is an epoch that is not already an integer. */
function needsFix(value: unknown): boolean {
  if (typeof value === "number") return !Number.isInteger(value) && Number.isFinite(value);
  return typeof value === "string" && NUMERIC_TEXT.test(value);
}

function metaOf(row: Row): Row | undefined {
  const meta = row._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Row) : undefined;
}

/** Whether any epoch field of the row is a string or a fraction: the cheap check of the lean path. */
export function hasLooseEpochs(row: Row): boolean {
  for (const key of TOP_LEVEL_EPOCHS) if (needsFix(row[key])) return true;
  const meta = metaOf(row);
  if (meta === undefined) return false;
  for (const key in meta) if (META_EPOCH.test(key) && needsFix(meta[key])) return true;
  return false;
}

/** The row itself when its epochs are integers already, else a copy with them made integers. */
export function withIntegerEpochs<T extends Row>(row: T): T {
  if (!hasLooseEpochs(row)) return row;
  const copy: Record<string, unknown> = { ...row };
  for (const key of TOP_LEVEL_EPOCHS) if (needsFix(row[key])) copy[key] = epochSeconds(row[key]);
  const meta = metaOf(row);
  if (meta !== undefined) {
    const metaCopy: Record<string, unknown> = { ...meta };
    for (const key in meta)
      if (META_EPOCH.test(key) && needsFix(meta[key])) metaCopy[key] = epochSeconds(meta[key]);
    copy._meta = metaCopy;
  }
  return copy as T;
}
