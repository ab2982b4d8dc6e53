/**
 * One attempt to hand a delivery to its receiver, through @rda/webhooks' `attemptOnce` (Standard
 * Webhooks signing with both secrets while a rotation overlaps, the address guard after DNS on every
 * attempt, no redirects, a deadline and a cap on the answer read). The body:
 * `{type, timestamp, data: {monitor_id, delivery_id, items}}`.
 */
import { attemptOnce, type DeliveryAttempt } from "@rda/webhooks";
import type { DeliveryRecord } from "./delivery-record.ts";
import type { WebhookSettings } from "./webhook-settings.ts";
import type { Endpoint } from "./webhook-store.ts";

export function sendDelivery(
  record: DeliveryRecord,
  endpoint: Endpoint,
  settings: WebhookSettings,
  timeoutMs = settings.attemptTimeoutMs,
): Promise<DeliveryAttempt> {
  return attemptOnce(
    endpoint,
    {
      id: record.id,
      type: record.type,
      data: { monitor_id: record.monitor_id, delivery_id: record.id, items: record.items },
    },
    record.round,
    {
      sealingKey: settings.sealingKey,
      allowLoopback: settings.allowLoopback,
      timeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
    },
  );
}
