/**
 * The one way a service works off a JetStream durable consumer (docs/architecture.md#background-work):
 * `concurrency` handlers, each pulling one message only when it is free, so a message never waits
 * in a buffer behind a slow one with its ack wait running. The rules every consumer follows:
 *
 * - a message that does not parse is terminated with a log line (never redelivered forever);
 * - the handler says how the message ends: acked (done, or deliberately not done), handed back
 *   for a retry after a delay, or left (this replica lost the work to another: neither acked nor
 *   handed back, so it cannot end a delivery another replica is working on);
 * - a handler that throws hands the message back after `retryMs`;
 * - while a handler runs, its message's ack wait is renewed (`working()`), so a long handler keeps
 *   its message and a replica that died loses it after the ack wait;
 * - `stop()` ends the pulls, lets each handler under way finish (it may look at `isStopped` to end
 *   early), and hands back a message that arrives after it.
 */
import type { ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import { jetstream } from "@nats-io/jetstream";
import { decodeJson } from "@rda/contracts";
import type { z } from "zod";
import { renewWhileHeld } from "./lease.ts";
import type { Logger } from "./logger.ts";
import type { Loop } from "./loop.ts";
import type { NatsConnection } from "./nats.ts";

/** How a handled message ends. */
export type MessageEnd =
  | { readonly kind: "ack" }
  | { readonly kind: "retry"; readonly delayMs: number }
  | { readonly kind: "leave" };

export const ACK: MessageEnd = { kind: "ack" };
export const LEAVE: MessageEnd = { kind: "leave" };
export const retryIn = (delayMs: number): MessageEnd => ({ kind: "retry", delayMs });

export interface ConsumerLoopOptions<S extends z.ZodType> {
  /** What one message is, for the log lines ("refund", "notice event", "export job"). */
  readonly name: string;
  readonly nats: NatsConnection;
  readonly stream: string;
  readonly consumer: string;
  /** What a message holds; one that does not parse is terminated. */
  readonly schema: S;
  readonly handle: (value: z.output<S>, message: JsMsg, isStopped: () => boolean) => Promise<MessageEnd>;
  /** How soon a message whose handler threw is delivered again. */
  readonly retryMs: number;
  /** Handlers at once on this replica (default 1). */
  readonly concurrency?: number;
  /** Told of each message that did not parse (for a metric), after it was terminated. */
  readonly onMalformed?: () => void;
  readonly logger: Logger;
}

/** How long one pull waits for a message before asking again. */
const PULL_MS = 5_000;
/** After a pull fails (NATS away, the stream moving to another leader), the wait doubles to this. */
const PULL_BACKOFF = { firstMs: 200, mostMs: 5_000 };

export async function startConsumerLoop<S extends z.ZodType>(options: ConsumerLoopOptions<S>): Promise<Loop> {
  const { name, logger } = options;
  const consumer = await jetstream(options.nats).consumers.get(options.stream, options.consumer);
  const ackWaitMs = Number((await consumer.info(true)).config.ack_wait) / 1_000_000;
  let stopped = false;
  const isStopped = () => stopped;
  const pulls = new Set<ConsumerMessages>();

  async function pull(): Promise<JsMsg | null> {
    const batch = await consumer.fetch({ max_messages: 1, expires: PULL_MS });
    pulls.add(batch);
    try {
      for await (const message of batch) return message;
      return null;
    } finally {
      pulls.delete(batch);
    }
  }

  async function worker(): Promise<void> {
    let backoffMs = 0;
    while (!isStopped()) {
      const message = await pull().catch((error: unknown) => {
        if (backoffMs === 0)
          logger.warn({ err: String(error), consumer: name }, `cannot pull ${name} messages`);
        backoffMs = Math.min(PULL_BACKOFF.mostMs, Math.max(PULL_BACKOFF.firstMs, backoffMs * 2));
        return undefined;
      });
      if (message === undefined) {
        if (!isStopped()) await sleep(backoffMs);
        continue;
      }
      backoffMs = 0;
      if (message === null) continue;
      // A message that came after stop() goes back at once, for another replica or the next start.
      if (isStopped()) message.nak();
      else await handleOne(options, ackWaitMs, message, isStopped);
    }
  }

  const workers = Array.from({ length: options.concurrency ?? 1 }, worker);
  return {
    async stop() {
      stopped = true;
      for (const batch of pulls) batch.close().catch(() => undefined);
      await Promise.allSettled(workers);
    },
  };
}

async function handleOne<S extends z.ZodType>(
  options: ConsumerLoopOptions<S>,
  ackWaitMs: number,
  message: JsMsg,
  isStopped: () => boolean,
): Promise<void> {
  const { name, logger } = options;
  const parsed = decodeJson(message.data, options.schema);
  if (!parsed.ok) {
    logger.error(
      { seq: message.seq, problem: parsed.error, consumer: name },
      `malformed ${name} message dropped`,
    );
    // No reason text: NATS 2.9 ignores "+TERM <reason>" and would redeliver.
    message.term();
    options.onMalformed?.();
    return;
  }
  const stopRenewing = renewWhileHeld(
    ackWaitMs,
    () => message.working(),
    (error) =>
      logger.warn(
        { seq: message.seq, err: String(error), consumer: name },
        `${name} message: ack wait not renewed`,
      ),
  );
  try {
    const end = await options.handle(parsed.value, message, isStopped);
    if (end.kind === "ack") message.ack();
    else if (end.kind === "retry") message.nak(end.delayMs);
  } catch (error) {
    logger.error(
      { seq: message.seq, err: String(error), consumer: name },
      `${name} message not handled; retrying`,
    );
    message.nak(options.retryMs);
  } finally {
    stopRenewing();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
