/**
 * The Redis keys of monitors' webhook delivery, in the monitors service's own family (the same root
 * as monitor-keys.ts, so the service's ACL pattern covers them): each monitor's receiver, and the
 * outbox its deliveries are queued and logged in (@rda/webhooks outbox.ts, the monitor its owner).
 * One monitor's delivery keys share its hash tag `{id}`, so the scripts that move a batch along
 * touch one Redis Cluster slot.
 */
import type { OutboxKeys } from "@rda/webhooks";

export interface WebhookKeys extends OutboxKeys {
  /** Hash: the monitor's receiver (url, sealed secrets, status, stream cursor, batch sequence). */
  endpoint(monitorId: string): string;
  /**
   * String: the secret a rotation with this request token made (JSON: sealed, and until when the
   * one before still signs), for the replay window.
   */
  rotation(monitorId: string, token: string): string;
  /** Set: every monitor with a webhook, walked by each replica's delivery loop. */
  readonly owners: string;
}

export function webhookKeys(namespace = ""): WebhookKeys {
  const root = `${namespace === "" ? "rda" : `${namespace}:rda`}:monitors`;
  return Object.freeze({
    endpoint: (id: string) => `${root}:monitor:{${id}}:webhook`,
    rotation: (id: string, token: string) => `${root}:monitor:{${id}}:webhook:rotation:${token}`,
    queue: (id: string) => `${root}:monitor:{${id}}:webhook:queue`,
    delivery: (id: string, deliveryId: string) => `${root}:monitor:{${id}}:webhook:delivery:${deliveryId}`,
    log: (id: string) => `${root}:monitor:{${id}}:webhook:log`,
    lease: (id: string) => `${root}:monitor:{${id}}:webhook:lease`,
    owners: `${root}:webhooks`,
  });
}
