/**
 * Publishes refunds to billing's JetStream stream with the gateway's request id as the message id, so
 * a retried publish is deduplicated and billing applies each refund once (architecture.md step 6).
 * A refund is never dropped silently: a failed publish is retried in the background with backoff
 * (NATS may be briefly down), and `stop()` makes a last attempt and logs anything still pending.
 */
import type { RefundMessage, Subjects } from "@rda/contracts";
import { type Logger, type NatsConnection, publishRefund } from "@rda/service-kit";
import type { GatewayMetrics } from "./metrics.ts";

const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;
const PUBLISH_TIMEOUT_MS = 2_000;

export interface RefundPublisher {
  /** Fire and forget for the caller; delivery is this module's job. */
  refund(message: RefundMessage): void;
  pending(): number;
  stop(): Promise<void>;
}

export function createRefundPublisher(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  metrics: GatewayMetrics;
}): RefundPublisher {
  const { subjects, logger, metrics } = deps;
  const inFlight = new Map<string, Promise<void>>();
  let stopping = false;

  const publishOnce = async (message: RefundMessage): Promise<boolean> => {
    const outcome = await publishRefund(deps.nats, subjects, message, PUBLISH_TIMEOUT_MS);
    if (outcome.ok) return true;
    metrics.refundPublishFailures.inc();
    logger.warn({ refund: message, reason: outcome.message }, "refund publish failed; will retry");
    return false;
  };
  const deliver = async (message: RefundMessage) => {
    for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      if (await publishOnce(message)) {
        metrics.creditsRefunded.inc({ reason: message.reason });
        return;
      }
      if (stopping) {
        logger.error({ refund: message }, "refund NOT delivered before shutdown; apply it by hand");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };

  return {
    refund(message) {
      if (inFlight.has(message.request_id)) return;
      const work = deliver(message).finally(() => inFlight.delete(message.request_id));
      inFlight.set(message.request_id, work);
    },
    pending: () => inFlight.size,
    async stop() {
      stopping = true;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
