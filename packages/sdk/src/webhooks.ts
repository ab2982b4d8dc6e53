/**
 * Verifying the webhooks a monitor sends (docs/api.md#monitor-webhooks): each POST is signed per
 * Standard Webhooks with the secret shown when the webhook was set (or rotated). `verifyWebhook`
 * checks the signature and the timestamp's freshness with the `standardwebhooks` package and
 * returns the event; it throws `WebhookVerificationError` for anything else (the SDK's own class,
 * so its declarations need no Node types). During a secret's
 * rotation both signatures are sent, so the old secret and the new one both verify.
 * Receivers should drop a `webhook-id` they have already processed: a batch is sent again, with the
 * same id, when its acceptance was not seen.
 */
import { Webhook } from "standardwebhooks";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

/** One monitor's batch of matched items (`monitor.items`) or a test event (`monitor.test`). */
export interface MonitorWebhookEvent {
  type: "monitor.items" | "monitor.test";
  /** ISO time of this attempt. */
  timestamp: string;
  data: {
    monitor_id: string;
    /** The same as the `webhook-id` header. */
    delivery_id: string;
    /** Posts or comments, in delivery order; empty for a test event. */
    items: Record<string, unknown>[];
  };
}

export type WebhookHeaders = Record<string, string | readonly string[] | undefined> | Headers;

/** The event, once its signature verified against `secret` (`whsec_…`); throws otherwise. */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): MonitorWebhookEvent {
  const payload = typeof body === "string" ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(payload, plainHeaders(headers)) as MonitorWebhookEvent;
  } catch (error) {
    throw new WebhookVerificationError(error instanceof Error ? error.message : String(error));
  }
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    plain[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ");
  }
  return plain;
}
