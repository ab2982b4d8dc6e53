/**
 * One delivery: a batch of a monitor's items (or a test event) with a stable id, which is its
 * `webhook-id` on every attempt and every redelivery. It is an outbox delivery (@rda/webhooks
 * outbox.ts, whose loop draws its states; the owner is the monitor) with the round's money beside:
 *
 *   pending ──debit, 2xx──► accepted ──settled──► delivered
 *      │  └─failure─► pending (next_attempt_at later, within the retry window)
 *      └─window over─► failed (refunded once) ──redeliver / resume──► pending (next round)
 *   delivered ──redeliver──► pending (next round)
 *
 * Each round is debited once in billing under `<id>.r<round>` before its first attempt, settled on
 * a 2xx, refunded when the round fails for good (delivery-worker.ts).
 */
import type { RequestTokenMark } from "@rda/service-kit";
import { nextRoundOf, type OutboxDelivery } from "@rda/webhooks";

/** The shared retry schedule (@rda/webhooks schedule.ts). */
export { retryDelayMs } from "@rda/webhooks";

/** What the receiver gets as the body's `data`. */
export type BatchData = {
  readonly monitor_id: string;
  readonly delivery_id: string;
  readonly items: readonly unknown[];
};

export interface DeliveryRecord extends OutboxDelivery {
  readonly type: "monitor.items" | "monitor.test";
  readonly data: BatchData;
  /** The round billing has debited (null: none yet); test events are never debited. */
  readonly debited_round: number | null;
  /** Whether the failed round's debit went back. */
  readonly refunded: boolean;
  /**
   * The request tokens of the redeliveries that started its rounds (service-kit's
   * request-tokens.ts), written with the round: the same redelivery again starts none.
   */
  readonly request_tokens?: readonly RequestTokenMark[];
}

export function deliveryIdOf(monitorId: string, sequence: number): string {
  return `msg_${monitorId}_${sequence}`;
}

export function testDeliveryIdOf(monitorId: string, sequence: number): string {
  return `msg_${monitorId}_t${sequence}`;
}

export function debitIdOf(record: Pick<DeliveryRecord, "id" | "round">): string {
  return `${record.id}.r${record.round}`;
}

export function newDelivery(
  id: string,
  monitorId: string,
  type: DeliveryRecord["type"],
  items: readonly unknown[],
  now: number,
): DeliveryRecord {
  return {
    id,
    owner: monitorId,
    type,
    data: { monitor_id: monitorId, delivery_id: id, items },
    created_at: now,
    state: "pending",
    round: 0,
    debited_round: null,
    refunded: false,
    round_started_at: now,
    next_attempt_at: 0,
    attempts: [],
  };
}

/** The next round of a delivery: sent again from now, with a fresh retry window and debit. */
export function nextRound(record: DeliveryRecord, now: number): DeliveryRecord {
  return { ...nextRoundOf(record, now), refunded: false };
}

/** What `GET /v1/monitors/{id}/deliveries` shows of a delivery: no items, every attempt. */
export function publicDelivery(record: DeliveryRecord) {
  return {
    id: record.id,
    type: record.type,
    items: record.data.items.length,
    state: record.state === "accepted" ? "delivered" : record.state,
    created_at: Math.floor(record.created_at / 1000),
    next_attempt_at:
      record.state === "pending" && record.next_attempt_at > 0
        ? Math.floor(record.next_attempt_at / 1000)
        : null,
    attempts: record.attempts.map((attempt) => ({
      at: Math.floor(attempt.at / 1000),
      status_code: attempt.status,
      latency_ms: attempt.latency_ms,
      error: attempt.error,
    })),
  };
}
