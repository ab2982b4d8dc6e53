/**
 * The monitors service's own metrics. The delivery delay is the honest freshness figure: from an
 * item's `created_utc` to the moment a live poll delivered it, which includes the archive's own
 * ingestion delay (docs/upstream.md), not only our polling interval.
 */
import { Counter, Histogram, Registry } from "@rda/service-kit";

export interface MonitorMetrics {
  readonly deliveryDelay: Histogram<string>;
  readonly polls: Counter<string>;
  readonly webhookAttempts: Counter<string>;
  readonly lateItems: Counter<string>;
}

export function createMonitorMetrics(registry: Registry = new Registry()): MonitorMetrics {
  const registers = [registry];
  return {
    deliveryDelay: new Histogram({
      name: "monitors_delivery_delay_seconds",
      help: "From a live item's created_utc to its delivery to a monitor (includes the archive's ingestion delay).",
      buckets: [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
      registers,
    }),
    polls: new Counter({
      name: "monitors_source_polls_total",
      help: "Source polls by outcome (ok, failed, idle).",
      labelNames: ["outcome"],
      registers,
    }),
    webhookAttempts: new Counter({
      name: "monitors_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome (delivered, failed, refused).",
      labelNames: ["outcome"],
      registers,
    }),
    lateItems: new Counter({
      name: "monitors_late_items_total",
      help: "Items a look-back sweep found that the archive ingested after newer ones (delivered late, not lost).",
      registers,
    }),
  };
}
