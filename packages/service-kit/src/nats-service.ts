/**
 * Serves one NATS subject in a queue group: every replica of a service joins the same group, so each
 * request is handled once and replicas share the load. Handlers run concurrently; `stop()` stops
 * taking new requests and waits for the ones in flight, for graceful shutdown.
 */
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "./logger.ts";

export type RequestHandler = (payload: Uint8Array, message: Msg) => Promise<string | Uint8Array>;

export interface ServedSubject {
  readonly subject: string;
  stop(): Promise<void>;
  inFlight(): number;
}

export function serveSubject(
  connection: NatsConnection,
  options: { subject: string; queue: string; logger: Logger; handler: RequestHandler },
): ServedSubject {
  const pending = new Set<Promise<void>>();
  const { subject, queue, logger, handler } = options;
  const subscription: Subscription = connection.subscribe(subject, {
    queue,
    callback: (error, message) => {
      if (error) {
        logger.error({ err: error, subject }, "subscription error");
        return;
      }
      const work = answer(message, handler, logger).finally(() => pending.delete(work));
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

async function answer(message: Msg, handler: RequestHandler, logger: Logger): Promise<void> {
  try {
    const reply = await handler(message.data, message);
    if (message.reply) message.respond(reply);
  } catch (error) {
    // A handler that throws has a bug; the requester sees a timeout-free failure instead of silence.
    logger.error({ err: error, subject: message.subject }, "request handler failed");
    if (message.reply) message.respond(JSON.stringify({ outcome: "failure", message: "internal error" }));
  }
}
