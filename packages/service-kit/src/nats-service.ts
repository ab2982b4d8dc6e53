/**
 * Serves one NATS subject in a queue group: every replica of a service joins the same group, so each
 * request is handled once and replicas share the load. Handlers run concurrently; `stop()` stops
 * taking new requests and waits for the ones in flight, for graceful shutdown. A handler that throws
 * answers with a service error (nats.ts, `respondWithError`), never with silence or a body its caller misreads.
 * With tracing on, each request is a server span continuing the requester's trace (nats-trace.ts).
 */
import { headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import type { Logger } from "./logger.ts";
import { respondWithError, ServiceError } from "./nats.ts";
import { receivedContext } from "./nats-trace.ts";
import { inSpan, otelTrace, SpanKind, SpanStatusCode, tracingActive } from "./tracing.ts";

export type RequestHandler = (payload: Uint8Array, message: Msg) => Promise<string | Uint8Array>;

export interface ServedSubject {
  readonly subject: string;
  stop(): Promise<void>;
  inFlight(): number;
}

/** Marks a progress message: no reply, only "still working" (requestWithProgress reads it). */
export const PROGRESS_HEADER = "Rda-Progress";

export function serveSubject(
  connection: NatsConnection,
  options: {
    subject: string;
    queue: string;
    logger: Logger;
    handler: RequestHandler;
    /** While a request takes longer, send its requester a progress message this often. */
    progressEveryMs?: number;
  },
): ServedSubject {
  const pending = new Set<Promise<void>>();
  const { subject, queue, logger, progressEveryMs } = options;
  const handler = progressEveryMs ? withProgress(options.handler, progressEveryMs) : options.handler;
  const subscription: Subscription = connection.subscribe(subject, {
    queue,
    callback: (error, message) => {
      if (error) {
        logger.error({ err: error, subject }, "subscription error");
        return;
      }
      const answering = tracingActive()
        ? answerTraced(message, handler, logger)
        : answer(message, handler, logger);
      const work = answering.finally(() => pending.delete(work));
      pending.add(work);
    },
  });
  return {
    subject,
    inFlight: () => pending.size,
    async stop() {
      await subscription.drain();
      await Promise.allSettled([...pending]);
    },
  };
}

/**
 * Sends the requester an empty message marked PROGRESS_HEADER every `everyMs` while the handler
 * works, so it can tell a slow answer from a dead responder. A quick answer sends none.
 */
function withProgress(handler: RequestHandler, everyMs: number): RequestHandler {
  return async (payload, message) => {
    if (!message.reply) return handler(payload, message);
    const marks = headers();
    marks.set(PROGRESS_HEADER, "1");
    const beat = setInterval(() => {
      try {
        message.respond(new Uint8Array(), { headers: marks });
      } catch {
        // The connection is closing; the reply (or its absence) tells the requester the rest.
      }
    }, everyMs);
    try {
      return await handler(payload, message);
    } finally {
      clearInterval(beat);
    }
  };
}

function answerTraced(message: Msg, handler: RequestHandler, logger: Logger): Promise<void> {
  const attributes = { "messaging.system": "nats", "messaging.destination.name": message.subject };
  const options = { kind: SpanKind.SERVER, attributes, parent: receivedContext(message.headers) };
  return inSpan(message.subject, options, () => answer(message, handler, logger));
}

async function answer(message: Msg, handler: RequestHandler, logger: Logger): Promise<void> {
  const started = logger.isLevelEnabled("debug") ? performance.now() : undefined;
  try {
    const reply = await handler(message.data, message);
    if (message.reply) message.respond(reply);
    // One line per request at LOG_LEVEL=debug: with tracing on it names the request and its trace.
    if (started !== undefined) {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.debug({ subject: message.subject, ms }, "request answered");
    }
  } catch (error) {
    otelTrace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    if (!message.reply) return;
    if (error instanceof ServiceError) return respondWithError(message, error.code, error.message);
    logger.error({ err: error, subject: message.subject }, "request handler failed");
    respondWithError(message, 500, "internal error");
  }
}
