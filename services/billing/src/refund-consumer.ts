/**
 * Applies refunds from the durable consumer, on service-kit's consumer loop. A message is acked
 * only after its refund is applied (or found to be a no-op); a Redis failure hands it back for
 * redelivery; a malformed one is terminated (the loop's rules).
 */
import { type RefundMessage, refundMessageSchema, type Subjects } from "@rda/contracts";
import {
  ACK,
  inSpan,
  type JsMsg,
  type Logger,
  type Loop,
  type MessageEnd,
  type NatsConnection,
  receivedContext,
  retryIn,
  SpanKind,
  startConsumerLoop,
  tracingActive,
} from "@rda/service-kit";
import { type LedgerContext, refund } from "./ledger/index.ts";
import type { BillingMetrics } from "./metrics.ts";

const RETRY_DELAY_MS = 1_000;
/** Refunds are independent of each other (each is one script keyed by its request id). */
const CONCURRENCY = 4;

export function startRefundConsumer(
  nats: NatsConnection,
  subjects: Subjects,
  context: LedgerContext,
  logger: Logger,
  metrics: BillingMetrics,
): Promise<Loop> {
  const apply = (message: RefundMessage) => applyRefund(message, context, logger, metrics);
  return startConsumerLoop({
    name: "refund",
    nats,
    stream: subjects.refundStream,
    consumer: subjects.refundConsumer,
    schema: refundMessageSchema,
    handle: (refundMessage, message) =>
      tracingActive() ? applyTraced(message, () => apply(refundMessage)) : apply(refundMessage),
    retryMs: RETRY_DELAY_MS,
    concurrency: CONCURRENCY,
    onMalformed: () => metrics.refunds.inc({ outcome: "malformed" }),
    logger,
  });
}

/** The refund continues the trace of the request that failed (its headers carry the context). */
function applyTraced(message: JsMsg, apply: () => Promise<MessageEnd>) {
  const options = { kind: SpanKind.CONSUMER, parent: receivedContext(message.headers) };
  return inSpan(`${message.subject} process`, options, apply);
}

async function applyRefund(
  message: RefundMessage,
  context: LedgerContext,
  logger: Logger,
  metrics: BillingMetrics,
): Promise<MessageEnd> {
  const { key_id, request_id, reason } = message;
  try {
    const result = await refund(context, message);
    metrics.refunds.inc({ outcome: result.outcome });
    const log = result.outcome === "expired" ? logger.warn.bind(logger) : logger.info.bind(logger);
    log({ key_id, request_id, reason, outcome: result.outcome }, "refund handled");
    return ACK;
  } catch (error) {
    metrics.refunds.inc({ outcome: "retried" });
    logger.warn({ key_id, request_id, err: String(error) }, "refund not applied yet; will retry");
    return retryIn(RETRY_DELAY_MS);
  }
}
