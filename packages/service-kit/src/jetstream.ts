/**
 * JetStream for the services that need it (billing consumes refunds, the gateway publishes them).
 * Re-exported here so services depend on one NATS client version through the service kit.
 */
import { type JetStreamClient, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { err, ok, type RefundMessage, type Result, type Subjects } from "@rda/contracts";
import { traceHeaders } from "./nats-trace.ts";
import { tracingActive } from "./tracing.ts";

export type {
  ConsumerConfig,
  ConsumerMessages,
  JetStreamClient,
  JetStreamManager,
  JsMsg,
  PubAck,
  StreamConfig,
} from "@nats-io/jetstream";
export {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";

/**
 * Publishes a refund for a debited request. The message id is the request id, so a retried publish
 * inside the stream's duplicate window is dropped by JetStream, and billing's debit marker makes any
 * later copy a no-op: the refund is applied exactly once. A failure is returned, never thrown, so the
 * caller can log it (the credit is then not refunded automatically).
 */
export async function publishRefund(
  target: NatsConnection | JetStreamClient,
  subjects: Subjects,
  message: RefundMessage,
  timeoutMs = 5_000,
): Promise<Result<{ duplicate: boolean }>> {
  const client = "consumers" in target ? target : jetstream(target);
  try {
    const ack = await client.publish(subjects.billing.refunds, JSON.stringify(message), {
      msgID: message.request_id,
      expect: { streamName: subjects.refundStream },
      timeout: timeoutMs,
      // The refund is applied later by billing's consumer, which continues this trace.
      ...(tracingActive() ? { headers: traceHeaders() } : {}),
    });
    return ok({ duplicate: ack.duplicate });
  } catch (error) {
    return err(`refund for ${message.request_id} not published: ${String(error)}`);
  }
}
