/**
 * monitors: keeps monitors (Redis), polls their sources (one replica per source at a time, under
 * service-kit's lease) through the adapters, sends their webhook batches through @rda/webhooks'
 * outbox, and answers the gateway's `monitors.*` requests in the `monitors` queue group. A value:
 * connections come in, nothing is read from the environment.
 */
import { randomBytes } from "node:crypto";
import {
  DEFAULT_MONITOR_LIMITS,
  fundingOf,
  type MonitorLimits,
  type Subjects,
  workDebitDeadlineMs,
} from "@rda/contracts";
import {
  adapterArchiveCount,
  billingCaller,
  createDebitEnds,
  type Logger,
  type NatsConnection,
  type Redis,
  type Registry,
  watchKeyRevocations,
} from "@rda/service-kit";
import { WebhookOutbox } from "@rda/webhooks";
import { serveMonitorApi } from "./api.ts";
import { createMonitorMetrics } from "./metrics.ts";
import { monitorKeys } from "./monitor-keys.ts";
import { MonitorStore } from "./monitor-store.ts";
import { type PollerSettings, startPoller } from "./poller.ts";
import { stopRevokedKey } from "./revoked-keys.ts";
import { SourceLeases } from "./source-leases.ts";
import { natsDeliveryBilling } from "./webhooks/delivery-billing.ts";
import { natsDeliveryNotices } from "./webhooks/delivery-notices.ts";
import type { DeliveryRecord } from "./webhooks/delivery-record.ts";
import { startDeliveryWorker } from "./webhooks/delivery-worker.ts";
import { MonitorWebhooks } from "./webhooks/monitor-webhooks.ts";
import { WebhookEndpoints } from "./webhooks/webhook-endpoints.ts";
import { webhookKeys } from "./webhooks/webhook-keys.ts";
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "./webhooks/webhook-settings.ts";

export interface MonitorSettings extends PollerSettings {
  readonly limits: MonitorLimits;
  /** How long a replica holds a source while polling it; another takes over once it runs out. */
  readonly leaseMs: number;
  /** Webhook delivery (webhooks/webhook-settings.ts). */
  readonly webhooks: WebhookSettings;
  /** The wait for billing's answer to a batch's debit, settle or refund. */
  readonly billingTimeoutMs: number;
}

export const DEFAULT_MONITOR_SETTINGS: MonitorSettings = {
  limits: DEFAULT_MONITOR_LIMITS,
  tickMs: 1_000,
  leaseMs: 120_000,
  backfillPagesPerPoll: 20,
  livePagesPerPoll: 20,
  pageTimeoutMs: 35_000,
  lookbackEveryMs: 600_000,
  webhooks: DEFAULT_WEBHOOK_SETTINGS,
  billingTimeoutMs: 5_000,
};

export interface MonitorsDeps {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly logger: Logger;
  /** Where the metrics go (the process's registry); a private one when not given. */
  readonly registry?: Registry;
  readonly settings?: Partial<Omit<MonitorSettings, "webhooks">> & {
    readonly webhooks?: Partial<WebhookSettings>;
  };
}

export interface RunningMonitors {
  stop(): Promise<void>;
}

export async function startMonitors(deps: MonitorsDeps): Promise<RunningMonitors> {
  const settings: MonitorSettings = {
    ...DEFAULT_MONITOR_SETTINGS,
    ...deps.settings,
    webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, ...deps.settings?.webhooks },
  };
  const keys = monitorKeys(deps.namespace);
  const caller = billingCaller(deps.nats, deps.subjects, settings.billingTimeoutMs);
  const ends = createDebitEnds({
    billing: caller,
    nats: deps.nats,
    subjects: deps.subjects,
    logger: deps.logger,
    settleRetryMs: workDebitDeadlineMs(settings.webhooks.retryWindowMs, settings.webhooks.leaseMs),
  });
  const store = new MonitorStore(deps.redis, keys);
  const owner = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const outbox = new WebhookOutbox<DeliveryRecord>(deps.redis, webhookKeys(deps.namespace));
  const endpoints = new WebhookEndpoints(deps.redis, webhookKeys(deps.namespace), outbox);
  const billing = natsDeliveryBilling(caller, ends, settings.webhooks);
  const webhooks = new MonitorWebhooks({
    endpoints,
    outbox,
    settings: settings.webhooks,
    redis: deps.redis,
    itemsKey: keys.items,
    billing,
    logger: deps.logger,
  });
  if (settings.webhooks.allowLoopback)
    deps.logger.warn(
      "WEBHOOKS_ALLOW_LOOPBACK is on: monitor webhooks may go to http://127.0.0.1 — local development only, never in production",
    );
  const leases = new SourceLeases(deps.redis, keys, owner, settings.leaseMs);
  const served = serveMonitorApi({
    nats: deps.nats,
    namespace: deps.namespace,
    subjects: deps.subjects,
    store,
    leases,
    limits: settings.limits,
    logger: deps.logger,
    pageTimeoutMs: settings.pageTimeoutMs,
    count: adapterArchiveCount(deps.nats, deps.subjects, settings.pageTimeoutMs),
    webhooks,
    // When billing cannot say, the monitor is shown as running: a status is no reason to fail a read.
    funding: async (keyId) => {
      const owner = await billing.owner(keyId);
      return owner === undefined ? "ok" : fundingOf(owner.balance, owner.month_spend);
    },
  });
  const revocations = watchKeyRevocations({
    ...deps,
    onRevoked: (keyId) => stopRevokedKey({ store, logger: deps.logger }, keyId),
  });
  const metrics = createMonitorMetrics(deps.registry);
  const poller = startPoller({ ...deps, store, leases, metrics, settings });
  const delivery = startDeliveryWorker({
    monitors: store,
    outbox,
    endpoints,
    billing,
    notices: natsDeliveryNotices({ ...deps, billing }),
    settings: settings.webhooks,
    logger: deps.logger,
    owner,
    attempts: metrics.webhookAttempts,
    keyRevoked: (keyId) => stopRevokedKey({ store, logger: deps.logger }, keyId),
  });
  let stopping: Promise<void> | undefined;
  const stopAll = async () => {
    revocations.stop();
    await Promise.all(served.map((subject) => subject.stop()));
    await Promise.all([poller.stop(), delivery.stop()]);
    await ends.stop();
  };
  return {
    stop() {
      stopping ??= stopAll();
      return stopping;
    },
  };
}

export { DEFAULT_MONITOR_LIMITS, type MonitorLimits } from "@rda/contracts";
export { monitorKeys } from "./monitor-keys.ts";
export { webhookKeys } from "./webhooks/webhook-keys.ts";
export { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "./webhooks/webhook-settings.ts";
