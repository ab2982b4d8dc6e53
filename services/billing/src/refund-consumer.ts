/**
 * Applies refunds from the durable consumer. A message is acked only after its refund is applied (or
 * found to be a no-op); a Redis failure naks it for redelivery; a malformed message is terminated
 * with a log line so it is never redelivered forever.
 */
import { decodeJson, refundMessageSchema, type Subjects } from "@rda/contracts";
import {
  type ConsumerMessages,
  inSpan,
  type JsMsg,
  jetstream,
  type Logger,
  type NatsConnection,
  receivedContext,
  SpanKind,
  tracingActive,
} from "@rda/service-kit";
import { type LedgerContext, refund } from "./ledger/index.ts";
import type { BillingMetrics } from "./metrics.ts";

const RETRY_DELAY_MS = 1_000;

export interface RefundConsumer {
  stop(): Promise<void>;
}

export async function startRefundConsumer(
  nats: NatsConnection,
  subjects: Subjects,
  context: LedgerContext,
  logger: Logger,
  metrics: BillingMetrics,
): Promise<RefundConsumer> {
  const consumer = await jetstream(nats).consumers.get(subjects.refundStream, subjects.refundConsumer);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 64 });
  let stopping = false;
  const loop = (async () => {
    for await (const message of messages) {
      // Buffered messages seen after stop() go back at once, for another replica or the next start.
      if (stopping) message.nak();
      else if (tracingActive()) await applyTraced(message, context, logger, metrics);
      else await applyRefund(message, context, logger, metrics);
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

/** The refund continues the trace of the request that failed (its headers carry the context). */
function applyTraced(message: JsMsg, context: LedgerContext, logger: Logger, metrics: BillingMetrics) {
  const options = { kind: SpanKind.CONSUMER, parent: receivedContext(message.headers) };
  return inSpan(`${message.subject} process`, options, () => applyRefund(message, context, logger, metrics));
}

async function applyRefund(
  message: JsMsg,
  context: LedgerContext,
  logger: Logger,
  metrics: BillingMetrics,
): Promise<void> {
  const parsed = decodeJson(message.data, refundMessageSchema);
  if (!parsed.ok) {
    metrics.refunds.inc({ outcome: "malformed" });
    logger.error({ seq: message.seq, problem: parsed.error }, "malformed refund message dropped");
    // No reason text: NATS 2.9 ignores "+TERM <reason>" and would redeliver.
    message.term();
    return;
  }
  const { key_id, request_id, reason } = parsed.value;
  try {
    const result = await refund(context, parsed.value);
    metrics.refunds.inc({ outcome: result.outcome });
    const log = result.outcome === "expired" ? logger.warn.bind(logger) : logger.info.bind(logger);
    log({ key_id, request_id, reason, outcome: result.outcome }, "refund handled");
    message.ack();
  } catch (error) {
    metrics.refunds.inc({ outcome: "retried" });
    logger.warn({ key_id, request_id, err: String(error) }, "refund not applied yet; will retry");
    message.nak(RETRY_DELAY_MS);
  }
}
