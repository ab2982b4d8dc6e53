/**
 * Monitors' webhook delivery: the outbox's loop (@rda/webhooks outbox-loop.ts: one replica moves a
 * monitor's queue at a time under its lease, every write checking it, the head one step per turn,
 * batches strictly one after another so items arrive in order), with each batch round's money as
 * its hooks. A batch is cut only when the queue is empty, the item cursor and sequence moving in
 * the same write; each round is debited before its first attempt, settled once accepted (saved
 * `accepted` first, so it is never POSTed again), refunded when it fails for good, which leaves it
 * first in line and the monitor `failing`. Every step is repeatable: a replica killed mid-step
 * leaves the record where it was, and whoever takes over repeats the step with the same
 * `webhook-id` and the same debit id, so nothing is lost and nothing is charged twice.
 */
import { MONITOR_WEBHOOK_BATCH_ITEMS } from "@rda/contracts";
import type { Counter, Logger, Loop, SpendingRefusal } from "@rda/service-kit";
import {
  type DeliveryAttempt,
  type OutboxLoopDeps,
  type StepWriter,
  startOutboxLoop,
  type WebhookOutbox,
} from "@rda/webhooks";
import { isRunning, type MonitorRecord } from "../monitor.ts";
import type { MonitorStore } from "../monitor-store.ts";
import type { DeliveryBilling } from "./delivery-billing.ts";
import type { DeliveryNotices } from "./delivery-notices.ts";
import { type DeliveryRecord, debitIdOf, deliveryIdOf, newDelivery } from "./delivery-record.ts";
import type { Endpoint, WebhookEndpoints } from "./webhook-endpoints.ts";
import { attemptOptionsOf, type WebhookSettings } from "./webhook-settings.ts";

export interface DeliveryWorkerDeps {
  readonly monitors: Pick<MonitorStore, "get" | "read">;
  /** The monitors' outbox: their queues, records and logs. */
  readonly outbox: WebhookOutbox<DeliveryRecord>;
  readonly endpoints: Pick<WebhookEndpoints, "endpoint" | "setStatus" | "batchSource">;
  readonly billing: DeliveryBilling;
  readonly notices: DeliveryNotices;
  readonly settings: WebhookSettings;
  readonly logger: Logger;
  /** This replica's name in leases. */
  readonly owner: string;
  /** Attempts by outcome (`monitors_webhook_attempts_total`). */
  readonly attempts: Counter<string>;
  /** Billing refused a debit as the key is revoked: its monitors stop for good (revoked-keys.ts). */
  readonly keyRevoked: (keyId: string) => Promise<unknown>;
}

/** A monitor whose batches may move now, with its receiver. */
type Sending = Endpoint & { readonly monitor: MonitorRecord };
type Writer = StepWriter<DeliveryRecord>;

export function startDeliveryWorker(deps: DeliveryWorkerDeps): Loop {
  return startOutboxLoop(deliveryLoop(deps));
}

/** The outbox loop of monitors' batches: the outbox's steps, each round's money in its hooks. */
export function deliveryLoop(deps: DeliveryWorkerDeps): OutboxLoopDeps<DeliveryRecord, Sending> {
  return {
    name: "webhook delivery",
    outbox: deps.outbox,
    endpoint: (monitorId) => sendingMonitor(deps, monitorId),
    hooks: {
      nextDelivery: (_monitorId, sending, writer) => cutNextBatch(deps, sending, writer),
      beforeAttempt: (record, sending, writer) => chargeRound(deps, sending, writer, record),
      attempted: (attempt) => deps.attempts.inc({ outcome: outcomeOf(attempt) }),
      accepted: (record, sending) => settleRound(deps, sending, record),
      roundFailed: (record, sending, writer) => endFailedRound(deps, sending, writer, record),
    },
    schedule: deps.settings,
    attempt: attemptOptionsOf(deps.settings),
    logger: deps.logger,
    holder: deps.owner,
    leaseMs: deps.settings.leaseMs,
    tickMs: deps.settings.tickMs,
  };
}

/** The monitor and its receiver; "hold" while it is gone, stopped, or failing until resumed. */
async function sendingMonitor(deps: DeliveryWorkerDeps, monitorId: string): Promise<Sending | "hold"> {
  const [monitor, endpoint] = await Promise.all([
    deps.monitors.get(monitorId),
    deps.endpoints.endpoint(monitorId),
  ]);
  if (monitor === undefined || endpoint === undefined || !isRunning(monitor)) return "hold";
  if (endpoint.status === "failing") return "hold";
  return { ...endpoint, monitor };
}

/** The next up to 100 items after the cursor, queued as one batch with the next sequence number. */
async function cutNextBatch(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  writer: Writer,
): Promise<string | null> {
  const { monitor } = sending;
  const page = await deps.monitors.read(monitor.id, sending.cursor, MONITOR_WEBHOOK_BATCH_ITEMS);
  if (page.items.length === 0 || page.cursor === null) return null;
  const sequence = sending.sequence + 1;
  const id = deliveryIdOf(monitor.id, sequence);
  const record = newDelivery(id, monitor.id, "monitor.items", page.items, Date.now());
  const source = deps.endpoints.batchSource(monitor.id, sending.cursor, { cursor: page.cursor, sequence });
  return (await writer.cut(record, source)) ? record.id : null;
}

function outcomeOf(attempt: DeliveryAttempt): string {
  if (attempt.error === null) return "delivered";
  return attempt.error.startsWith("refused") ? "refused" : "failed";
}

/** Before each attempt: the round debited (once); undefined when it is not sent now. */
async function chargeRound(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  writer: Writer,
  record: DeliveryRecord,
): Promise<DeliveryRecord | undefined> {
  const charged = record.type === "monitor.test" || record.debited_round === record.round;
  const current = charged ? record : await debitRound(deps, sending, writer, record);
  if (current === undefined) return undefined;
  if (sending.status === "paused_for_credits") await deps.endpoints.setStatus(sending.monitor.id, "active");
  return current;
}

/**
 * Debits the round (once: the same id again answers `already_debited`); the record saying so, or
 * undefined when it cannot be sent now: billing did not answer, or the key is out of credits or at
 * its cap (the monitor pauses for credits and asks again later, its items kept in order).
 */
async function debitRound(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  writer: Writer,
  record: DeliveryRecord,
): Promise<DeliveryRecord | undefined> {
  const { monitor } = sending;
  const reply = await deps.billing.debit(monitor.key_id, debitIdOf(record));
  const later = { ...record, next_attempt_at: Date.now() + deps.settings.creditsRetryMs };
  if (reply === undefined) {
    await writer.save(later);
    return undefined;
  }
  switch (reply.outcome) {
    case "debited":
    case "already_debited": {
      const debited = { ...record, debited_round: record.round };
      return (await writer.save(debited)) ? debited : undefined;
    }
    case "insufficient":
    case "spend_cap_reached":
      await pauseForCredits(deps, sending, writer, later, reply);
      return undefined;
    case "revoked":
      // Stopped for good, not paused for credits: the round stays queued, never sent or charged.
      await deps.keyRevoked(monitor.key_id);
      return undefined;
    default: {
      // The key is gone, or this round ended already: nothing to charge or refund.
      const failed: DeliveryRecord = { ...record, state: "failed", refunded: true };
      if (await writer.save(failed)) await endFailedRound(deps, sending, writer, failed);
      return undefined;
    }
  }
}

/**
 * The monitor pauses, and its account holder is told once per pause: the notice (named by the
 * refused round) is published before the status changes, so a replica that dies between the two
 * publishes it again on the next turn, and the portal sends that crossing once.
 */
async function pauseForCredits(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  writer: Writer,
  record: DeliveryRecord,
  refusal: SpendingRefusal,
): Promise<void> {
  const { monitor } = sending;
  if (!(await writer.save(record))) return;
  if (sending.status === "paused_for_credits") return;
  await deps.notices.outOfCredits(monitor.key_id, monitor.id, `${debitIdOf(record)}:credits`, refusal);
  await deps.endpoints.setStatus(monitor.id, "paused_for_credits");
  deps.logger.info({ monitor_id: monitor.id }, "monitor webhook paused for credits");
}

/**
 * The receiver accepted the batch: its debit becomes final, and then (true) it is delivered. While
 * billing does not answer it stays accepted and is settled on a later turn (the receiver is not
 * asked again); a debit voided first (its deadline passed) leaves the batch free, as the log says.
 */
async function settleRound(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  record: DeliveryRecord,
): Promise<boolean> {
  if (record.type !== "monitor.items") return true;
  const settled = await deps.billing.settle(sending.monitor.key_id, debitIdOf(record));
  if (!settled.ok) return false;
  if (settled.value !== "settled" && settled.value !== "already_settled")
    deps.logger.warn(
      { monitor_id: sending.monitor.id, delivery_id: record.id, end: settled.value },
      "webhook batch not charged",
    );
  return true;
}

/**
 * A round that failed for good: its debit goes back (exactly once, billing keys it by the round's
 * id), the monitor pauses as `failing`, and its account holder is told. The delivery stays first
 * in the queue, so resuming (PATCH `paused: false`, or redelivering it) sends it again, in order.
 */
async function endFailedRound(
  deps: DeliveryWorkerDeps,
  sending: Sending,
  writer: Writer,
  record: DeliveryRecord,
): Promise<void> {
  const { monitor } = sending;
  if (!record.refunded) {
    const charged = record.type === "monitor.items" && record.debited_round === record.round;
    if (charged) await refundRound(deps, monitor, record, "webhook_failed");
    if (!(await writer.save({ ...record, refunded: true }))) return;
  }
  await deps.endpoints.setStatus(monitor.id, "failing");
  deps.logger.warn({ monitor_id: monitor.id, delivery_id: record.id }, "monitor webhook failing; paused");
  await deps.notices.failing(monitor.key_id, monitor.id, debitIdOf(record));
}

/**
 * Gives a round's debit back through the one settle-and-refund path (now, else queued durably in
 * billing's refund stream, else voided at its deadline): handed over either way, so the round is
 * marked refunded. A round found settled was accepted: a bug worth an error, never a second refund.
 */
export async function refundRound(
  deps: { readonly billing: Pick<DeliveryBilling, "refund">; readonly logger: Logger },
  monitor: Pick<MonitorRecord, "id" | "key_id">,
  record: DeliveryRecord,
  reason: string,
): Promise<void> {
  const refunded = await deps.billing.refund(monitor.key_id, debitIdOf(record), reason);
  const fields = { monitor_id: monitor.id, delivery_id: record.id, reason };
  if (!refunded.ok) deps.logger.warn(fields, "batch refund queued; billing was not reached");
  else if (refunded.value === "already_settled")
    deps.logger.error(fields, "batch refund refused: the batch was settled");
}
