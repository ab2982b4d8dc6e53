/**
 * Refunds of a debited request that will not be answered with data (docs/api.md#refunds). Applied at
 * once when billing answers (`billing.refund`), so the failure's answer can carry the true balance;
 * otherwise published to billing's JetStream stream with the request id as the message id, retried
 * in the background with backoff while NATS is down. Billing refunds only a pending debit it
 * recorded, so every path together applies a refund exactly once. A refund nobody could deliver is
 * still not lost: billing voids the pending debit at its deadline.
 */
import type { RefundMessage, Subjects } from "@rda/contracts";
import { type Logger, type NatsConnection, publishRefund, retryWithBackoff } from "@rda/service-kit";
import type { BillingClient } from "./billing-client.ts";
import type { GatewayMetrics } from "./metrics.ts";

const PUBLISH_TIMEOUT_MS = 2_000;

export interface Refunds {
  /** Applies the refund now when billing answers; returns the balance after it, or null if unknown. */
  refundNow(message: RefundMessage): Promise<number | null>;
  /** Queues the refund durably; delivery is this module's job. */
  refundLater(message: RefundMessage): void;
  stop(): Promise<void>;
}

export function createRefunds(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  billing: BillingClient;
  logger: Logger;
  metrics: GatewayMetrics;
}): Refunds {
  const { subjects, logger, metrics, billing } = deps;
  const inFlight = new Map<string, Promise<void>>();
  let stopping = false;

  const publishOnce = async (message: RefundMessage) => {
    const outcome = await publishRefund(deps.nats, subjects, message, PUBLISH_TIMEOUT_MS);
    if (!outcome.ok) {
      metrics.refundPublishFailures.inc();
      logger.warn({ refund: message, reason: outcome.error }, "refund publish failed; will retry");
    }
    return outcome;
  };
  const deliver = async (message: RefundMessage) => {
    const outcome = await retryWithBackoff(() => publishOnce(message), { giveUp: () => stopping });
    if (outcome.ok) metrics.creditsRefunded.inc({ reason: message.reason });
    else
      logger.error(
        { refund: message },
        "refund not queued before shutdown; billing voids the debit at its deadline",
      );
  };
  const refundLater = (message: RefundMessage) => {
    if (inFlight.has(message.request_id)) return;
    const work = deliver(message).finally(() => inFlight.delete(message.request_id));
    inFlight.set(message.request_id, work);
  };

  return {
    async refundNow(message) {
      const reply = await billing.refund(message);
      if (!reply.ok) {
        refundLater(message);
        return null;
      }
      if (reply.value.outcome === "refunded") metrics.creditsRefunded.inc({ reason: message.reason });
      return reply.value.balance;
    },
    refundLater,
    async stop() {
      stopping = true;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
