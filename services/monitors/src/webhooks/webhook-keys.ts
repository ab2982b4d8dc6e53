/**
 * The Redis keys of monitors' webhook delivery, in the monitors service's own family (the same root
 * as monitor-keys.ts, so the service's ACL pattern covers them). One monitor's delivery keys share
 * its hash tag `{id}`, so the scripts that move a batch along touch one Redis Cluster slot.
 */
export interface WebhookKeys {
  /** Hash: the monitor's receiver (url, sealed secrets, status, stream cursor, batch sequence). */
  endpoint(monitorId: string): string;
  /** List: ids of deliveries waiting to be sent, the head first (the one in flight). */
  queue(monitorId: string): string;
  /** String: one delivery's record (JSON), kept for the log's retention. */
  delivery(monitorId: string, deliveryId: string): string;
  /** Sorted set: the monitor's deliveries by creation time (ms), the log's index. */
  log(monitorId: string): string;
  /** String: the replica sending the monitor's deliveries now (SET NX PX). */
  lease(monitorId: string): string;
  /** Set: every monitor with a webhook, walked by each replica's delivery loop. */
  readonly endpoints: string;
}

export function webhookKeys(namespace = ""): WebhookKeys {
  const root = `${namespace === "" ? "rda" : `${namespace}:rda`}:monitors`;
  return Object.freeze({
    endpoint: (id: string) => `${root}:monitor:{${id}}:webhook`,
    queue: (id: string) => `${root}:monitor:{${id}}:webhook:queue`,
    delivery: (id: string, deliveryId: string) => `${root}:monitor:{${id}}:webhook:delivery:${deliveryId}`,
    log: (id: string) => `${root}:monitor:{${id}}:webhook:log`,
    lease: (id: string) => `${root}:monitor:{${id}}:webhook:lease`,
    endpoints: `${root}:webhooks`,
  });
}
