/**
 * Applies refunds from the durable consumer. A message is acked only after its refund is applied (or
 * found to be a no-op); a Redis failure naks it for redelivery; a malformed message is terminated
 * with a log line so it is never redelivered forever.
 */
import { type RefundMessage, refundMessageSchema, type Subjects } from "@rda/contracts";
import {
  type ConsumerMessages,
  type JsMsg,
  jetstream,
  type Logger,
  type NatsConnection,
} from "@rda/service-kit";
import { type LedgerContext, refund } from "./ledger/index.ts";

const RETRY_DELAY_MS = 1_000;

export interface RefundConsumer {
  stop(): Promise<void>;
}

export async function startRefundConsumer(
  nats: NatsConnection,
  subjects: Subjects,
  context: LedgerContext,
  logger: Logger,
): Promise<RefundConsumer> {
  const consumer = await jetstream(nats).consumers.get(subjects.refundStream, subjects.refundConsumer);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 64 });
  let stopping = false;
  const loop = (async () => {
    for await (const message of messages) {
      // Buffered messages seen after stop() go back at once, for another replica or the next start.
      if (stopping) message.nak();
      else await applyRefund(message, context, logger);
    }
  })();
  return {
    async stop() {
      stopping = true;
      await messages.close();
      await loop;
    },
  };
}

export async function applyRefund(message: JsMsg, context: LedgerContext, logger: Logger): Promise<void> {
  const parsed = parseRefund(message.data);
  if (!parsed.ok) {
    logger.error({ seq: message.seq, problem: parsed.problem }, "malformed refund message dropped");
    // No reason text: NATS 2.9 ignores "+TERM <reason>" and would redeliver.
    message.term();
    return;
  }
  const { key_id, request_id, reason } = parsed.value;
  try {
    const result = await refund(context, parsed.value);
    logger.info({ key_id, request_id, reason, outcome: result.outcome }, "refund handled");
    message.ack();
  } catch (error) {
    logger.warn({ key_id, request_id, err: String(error) }, "refund not applied yet; will retry");
    message.nak(RETRY_DELAY_MS);
  }
}

type Parsed = { ok: true; value: RefundMessage } | { ok: false; problem: string };

function parseRefund(data: Uint8Array): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  const parsed = refundMessageSchema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: parsed.error.message };
}
