/**
 * The webhook delivery loop of one replica. Every turn it walks the monitors with a webhook and,
 * for each whose lease it wins (service-kit's lease, so one replica sends a monitor's deliveries at a
 * time, and another takes over when a replica dies), moves the head of its queue one step along
 * (delivery-record.ts draws the states). Batches go strictly one after another, so items arrive in
 * order. Every step is repeatable: a replica killed mid-step leaves the record where it was, and
 * whoever takes over repeats the step with the same `webhook-id` and the same debit id, so nothing
 * is lost and nothing is charged twice.
 */
import { MONITOR_WEBHOOK_BATCH_ITEMS } from "@rda/contracts";
import { type Counter, type Logger, type Loop, type SpendingRefusal, startLoop } from "@rda/service-kit";
import { nextAttemptAt } from "@rda/webhooks";
import { isRunning, type MonitorRecord } from "../monitor.ts";
import type { MonitorStore } from "../monitor-store.ts";
import type { sendDelivery } from "./batch-sender.ts";
import type { DeliveryBilling } from "./delivery-billing.ts";
import type { DeliveryNotices } from "./delivery-notices.ts";
import {
  attemptsInRound,
  type DeliveryRecord,
  debitIdOf,
  deliveryIdOf,
  newDelivery,
  withAttempt,
} from "./delivery-record.ts";
import type { WebhookSettings } from "./webhook-settings.ts";
import type { Endpoint, WebhookStore } from "./webhook-store.ts";

/** The webhook store's part the loop uses (webhook-store.ts). */
export type DeliveryQueue = Pick<
  WebhookStore,
  "monitorsWithEndpoints" | "claim" | "endpoint" | "head" | "delivery" | "createBatch" | "save" | "setStatus"
>;

export interface DeliveryWorkerDeps {
  readonly monitors: Pick<MonitorStore, "get" | "read">;
  readonly webhooks: DeliveryQueue;
  /** One attempt's POST (batch-sender.ts). */
  readonly send: typeof sendDelivery;
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

interface Turn {
  readonly deps: DeliveryWorkerDeps;
  readonly monitor: MonitorRecord;
  readonly endpoint: Endpoint;
}

export function startDeliveryWorker(deps: DeliveryWorkerDeps): Loop {
  return startLoop({
    name: "webhook delivery",
    everyMs: deps.settings.tickMs,
    turn: (isStopped) => deliverDue(deps, isStopped),
    logger: deps.logger,
  });
}

/** One turn: each monitor with a webhook whose lease this replica wins moves one step. */
export async function deliverDue(deps: DeliveryWorkerDeps, isStopped: () => boolean): Promise<void> {
  for (const monitorId of await deps.webhooks.monitorsWithEndpoints()) {
    if (isStopped()) return;
    const lease = await deps.webhooks.claim(monitorId, deps.owner, deps.settings.leaseMs);
    if (lease === undefined) continue;
    try {
      await stepMonitor(deps, monitorId);
    } catch (error) {
      deps.logger.warn({ err: error, monitor_id: monitorId }, "webhook delivery step failed; retried");
    } finally {
      await lease.release();
    }
  }
}

/** Moves the monitor's head delivery one step; queues the next batch when none is waiting. */
async function stepMonitor(deps: DeliveryWorkerDeps, monitorId: string): Promise<void> {
  const [monitor, endpoint] = await Promise.all([
    deps.monitors.get(monitorId),
    deps.webhooks.endpoint(monitorId),
  ]);
  if (monitor === undefined || endpoint === undefined || !isRunning(monitor)) return;
  if (endpoint.status === "failing") return;
  const turn: Turn = { deps, monitor, endpoint };
  const headId = (await deps.webhooks.head(monitorId)) ?? (await queueNextBatch(turn));
  if (headId === null) return;
  const record = await deps.webhooks.delivery(monitorId, headId);
  if (record === undefined) return;
  if (record.next_attempt_at > Date.now()) return;
  if (record.state === "accepted") return settleAndFinish(turn, record);
  if (record.state === "failed") return endFailedRound(turn, record);
  if (record.state === "pending") return attempt(turn, record);
}

/** The next up to 100 items after the cursor, as one batch with the next sequence number. */
async function queueNextBatch({ deps, monitor, endpoint }: Turn): Promise<string | null> {
  const page = await deps.monitors.read(monitor.id, endpoint.cursor, MONITOR_WEBHOOK_BATCH_ITEMS);
  if (page.items.length === 0 || page.cursor === null) return null;
  const sequence = endpoint.sequence + 1;
  const record = newDelivery(
    deliveryIdOf(monitor.id, sequence),
    monitor.id,
    "monitor.items",
    page.items,
    Date.now(),
  );
  const next = { cursor: page.cursor, sequence };
  const created = await deps.webhooks.createBatch(deps.owner, record, { cursor: endpoint.cursor }, next);
  return created ? record.id : null;
}

async function attempt(turn: Turn, record: DeliveryRecord): Promise<void> {
  const { deps, monitor } = turn;
  const charged = record.type === "monitor.test" || record.debited_round === record.round;
  let current = record;
  if (!charged) {
    const debited = await debitRound(turn, record);
    if (debited === undefined) return;
    current = debited;
  }
  if (turn.endpoint.status === "paused_for_credits") await deps.webhooks.setStatus(monitor.id, "active");
  const result = await deps.send(current, turn.endpoint, deps.settings);
  const outcome =
    result.error === null ? "delivered" : result.error.startsWith("refused") ? "refused" : "failed";
  deps.attempts.inc({ outcome });
  const tried = withAttempt(current, result);
  if (result.error === null) {
    if (await deps.webhooks.save(deps.owner, { ...tried, state: "accepted" }))
      await settleAndFinish(turn, { ...tried, state: "accepted" });
    return;
  }
  const at = nextAttemptAt(tried.round_started_at, attemptsInRound(tried), deps.settings, Date.now());
  if (at !== undefined) {
    await deps.webhooks.save(deps.owner, { ...tried, next_attempt_at: at });
    return;
  }
  const failed: DeliveryRecord = { ...tried, state: "failed", refunded: false };
  if (await deps.webhooks.save(deps.owner, failed)) await endFailedRound(turn, failed);
}

/**
 * Debits the round (once: the same id again answers `already_debited`); the record saying so, or
 * undefined when it cannot be sent now: billing did not answer, or the key is out of credits or at
 * its cap (the monitor pauses for credits and asks again later, its items kept in order).
 */
async function debitRound(turn: Turn, record: DeliveryRecord): Promise<DeliveryRecord | undefined> {
  const { deps, monitor } = turn;
  const reply = await deps.billing.debit(monitor.key_id, debitIdOf(record));
  const later = { ...record, next_attempt_at: Date.now() + deps.settings.creditsRetryMs };
  if (reply === undefined) {
    await deps.webhooks.save(deps.owner, later);
    return undefined;
  }
  switch (reply.outcome) {
    case "debited":
    case "already_debited": {
      const debited = { ...record, debited_round: record.round };
      return (await deps.webhooks.save(deps.owner, debited)) ? debited : undefined;
    }
    case "insufficient":
    case "spend_cap_reached":
      await pauseForCredits(turn, later, reply);
      return undefined;
    case "revoked":
      // Stopped for good, not paused for credits: the round stays queued, never sent or charged.
      await deps.keyRevoked(monitor.key_id);
      return undefined;
    default: {
      // The key is gone, or this round ended already: nothing to charge or refund.
      const failed: DeliveryRecord = { ...record, state: "failed", refunded: true };
      if (await deps.webhooks.save(deps.owner, failed)) await endFailedRound(turn, failed);
      return undefined;
    }
  }
}

/**
 * The monitor pauses, and its account holder is told once per pause: the notice (named by the
 * refused round) is published before the status changes, so a replica that dies between the two
 * publishes it again on the next turn, and the portal sends that crossing once.
 */
async function pauseForCredits(turn: Turn, record: DeliveryRecord, refusal: SpendingRefusal): Promise<void> {
  const { deps, monitor, endpoint } = turn;
  if (!(await deps.webhooks.save(deps.owner, record))) return;
  if (endpoint.status === "paused_for_credits") return;
  await deps.notices.outOfCredits(monitor.key_id, monitor.id, `${debitIdOf(record)}:credits`, refusal);
  await deps.webhooks.setStatus(monitor.id, "paused_for_credits");
  deps.logger.info({ monitor_id: monitor.id }, "monitor webhook paused for credits");
}

/**
 * The receiver accepted the batch: its debit becomes final, then the delivery is done. While billing
 * does not answer the record stays accepted and is settled on a later turn (the receiver is not
 * asked again); a debit voided first (its deadline passed) leaves the batch free, as the log says.
 */
async function settleAndFinish({ deps, monitor }: Turn, record: DeliveryRecord): Promise<void> {
  if (record.type === "monitor.items") {
    const settled = await deps.billing.settle(monitor.key_id, debitIdOf(record));
    if (!settled.ok) return;
    if (settled.value !== "settled" && settled.value !== "already_settled")
      deps.logger.warn(
        { monitor_id: monitor.id, delivery_id: record.id, end: settled.value },
        "webhook batch not charged",
      );
  }
  await deps.webhooks.save(deps.owner, { ...record, state: "delivered" }, true);
}

/**
 * A round that failed for good: its debit goes back (exactly once, billing keys it by the round's
 * id), the monitor pauses as `failing`, and its account holder is told. The delivery stays first
 * in the queue, so resuming (PATCH `paused: false`, or redelivering it) sends it again, in order.
 */
async function endFailedRound({ deps, monitor }: Turn, record: DeliveryRecord): Promise<void> {
  if (!record.refunded) {
    const charged = record.type === "monitor.items" && record.debited_round === record.round;
    if (charged) await refundRound(deps, monitor, record, "webhook_failed");
    if (!(await deps.webhooks.save(deps.owner, { ...record, refunded: true }))) return;
  }
  await deps.webhooks.setStatus(monitor.id, "failing");
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
