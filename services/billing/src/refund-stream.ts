/**
 * The JetStream stream and durable consumer refunds travel through, set up by every billing replica
 * at start (jetstream-setup in the service kit). File storage keeps refunds across a NATS restart; the duplicate
 * window drops a re-published refund (same msg id = request id); the shared durable consumer hands
 * each message to one replica and redelivers it until that replica acks it.
 */
import { LEDGER_RETENTION, type Subjects } from "@rda/contracts";
import {
  AckPolicy,
  DeliverPolicy,
  ensureConsumer,
  ensureStream,
  type JetStreamManager,
  nanos,
} from "@rda/service-kit";

const MINUTE_MS = 60_000;

export const REFUND_STREAM = {
  /** Longer than any gateway retry of one publish; the debit marker catches anything later. */
  duplicateWindowMs: 5 * MINUTE_MS,
  /** A refund must be applied within this; debit records live longer (LEDGER_RETENTION). */
  maxAgeMs: LEDGER_RETENTION.refundStreamMaxAgeMs,
  /** Redelivery delay for a message whose refund could not be applied (Redis down). */
  ackWaitMs: 30_000,
} as const;

export async function ensureRefundStream(
  jsm: JetStreamManager,
  subjects: Subjects,
  replicas: number,
): Promise<void> {
  await ensureStream(
    jsm,
    {
      name: subjects.refundStream,
      subjects: [subjects.billing.refunds],
      max_age: nanos(REFUND_STREAM.maxAgeMs),
      duplicate_window: nanos(REFUND_STREAM.duplicateWindowMs),
    },
    replicas,
  );
}

export async function ensureRefundConsumer(jsm: JetStreamManager, subjects: Subjects): Promise<void> {
  await ensureConsumer(jsm, subjects.refundStream, {
    durable_name: subjects.refundConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subjects.billing.refunds,
    ack_wait: nanos(REFUND_STREAM.ackWaitMs),
    // Never give up on a refund: a Redis outage only delays it.
    max_deliver: -1,
  });
}
