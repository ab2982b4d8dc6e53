/**
 * One attempt to hand a delivery to its receiver, through @rda/webhooks (Standard Webhooks signing,
 * the address guard after DNS on every attempt, no redirects, a deadline and a cap on the answer
 * read). The body: `{type, timestamp, data: {monitor_id, delivery_id, items}}`. While a rotated
 * secret overlaps, both signatures go in `webhook-signature`.
 */
import { deliverWebhook, openSecret } from "@rda/webhooks";
import type { DeliveryAttempt, DeliveryRecord } from "./delivery-record.ts";
import type { WebhookSettings } from "./webhook-settings.ts";
import type { Endpoint } from "./webhook-store.ts";

/**
 * The secrets that sign now, newest first, opened from their sealed form; undefined when the
 * current one cannot be opened (it was sealed under another MONITOR_WEBHOOK_SEALING_KEY).
 */
export function signingSecrets(endpoint: Endpoint, sealingKey: Buffer, now: number): string[] | undefined {
  const open = (sealed: string) => {
    try {
      return openSecret(sealingKey, sealed);
    } catch {
      return undefined;
    }
  };
  const current = open(endpoint.secret);
  if (current === undefined) return undefined;
  const previous =
    endpoint.previous_secret !== null && endpoint.previous_until > now
      ? open(endpoint.previous_secret)
      : undefined;
  return previous === undefined ? [current] : [current, previous];
}

const SECRET_UNREADABLE =
  "the signing secret cannot be read (the sealing key changed): rotate the secret or set webhook_url again";

export async function sendDelivery(
  record: DeliveryRecord,
  endpoint: Endpoint,
  settings: WebhookSettings,
  timeoutMs = settings.attemptTimeoutMs,
): Promise<DeliveryAttempt> {
  const at = Date.now();
  const unsent = (error: string) => ({ at, round: record.round, status: null, latency_ms: 0, error });
  if (settings.sealingKey === undefined) return unsent("webhooks are not enabled on this deployment");
  const secrets = signingSecrets(endpoint, settings.sealingKey, at);
  if (secrets === undefined) return unsent(SECRET_UNREADABLE);
  const started = performance.now();
  const result = await deliverWebhook(
    { url: endpoint.url, secret: secrets },
    {
      id: record.id,
      type: record.type,
      data: { monitor_id: record.monitor_id, delivery_id: record.id, items: record.items },
    },
    {
      attempts: 1,
      allowLoopback: settings.allowLoopback,
      timeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
    },
  );
  const latency = Math.round(performance.now() - started);
  const base = { at, round: record.round, latency_ms: latency };
  switch (result.outcome) {
    case "delivered":
      return { ...base, status: result.status, error: null };
    case "refused":
      return { ...base, status: null, error: `refused: ${result.reason}` };
    case "failed":
      return { ...base, status: result.status ?? null, error: result.reason };
  }
}
