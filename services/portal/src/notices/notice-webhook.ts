/**
 * Accounts' notice webhooks ride on the one outbound webhook machinery (@rda/webhooks outbox.ts and
 * its loop), the same queue, loop and log as monitors' batches, with none of the hooks those add for
 * money: a notice is queued as a delivery, retried on the shared schedule for up to 3 days, every
 * attempt kept in the account's delivery log (shown on the notifications page), redeliverable,
 * signed with both secrets while a rotation overlaps; one that failed for good leaves the queue and
 * the next is sent. The notices worker (notices-worker.ts) runs the loop that sends them; the web
 * process only queues and reads.
 */
import type { Logger, Loop, PortalRedisKeys, Redis } from "@rda/service-kit";
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule, startOutboxLoop, WebhookOutbox } from "@rda/webhooks";
import type { NoticeSettingsStore } from "./notice-settings.ts";

export function noticeWebhookOutbox(redis: Redis, keys: PortalRedisKeys): WebhookOutbox {
  return new WebhookOutbox(redis, {
    queue: keys.noticeWebhookQueue,
    delivery: keys.noticeWebhookDelivery,
    log: keys.noticeWebhookLog,
    lease: keys.noticeWebhookLease,
    owners: keys.noticeWebhookOwners,
  });
}

/** How notice webhooks are sent; production's unless a test shrinks the times. */
export interface NoticeWebhookSettings {
  readonly sealingKey: Buffer | undefined;
  readonly allowLoopback: boolean;
  readonly schedule: RetrySchedule;
  readonly attemptTimeoutMs: number;
  readonly leaseMs: number;
  readonly tickMs: number;
}

export const DEFAULT_NOTICE_WEBHOOK_SETTINGS: NoticeWebhookSettings = {
  sealingKey: undefined,
  allowLoopback: false,
  schedule: DEFAULT_RETRY_SCHEDULE,
  attemptTimeoutMs: 10_000,
  leaseMs: 60_000,
  tickMs: 1_000,
};

/** How long the old secret still signs after a rotation (as monitors' default). */
export const NOTICE_SECRET_OVERLAP_MS = 86_400_000;

export function startNoticeWebhookLoop(deps: {
  readonly outbox: WebhookOutbox;
  readonly settings: NoticeSettingsStore;
  readonly webhooks: NoticeWebhookSettings;
  readonly logger: Logger;
  readonly holder: string;
}): Loop {
  const { webhooks } = deps;
  return startOutboxLoop({
    name: "notice webhook delivery",
    outbox: deps.outbox,
    endpoint: (accountId) => deps.settings.endpoint(accountId),
    schedule: webhooks.schedule,
    attempt: {
      sealingKey: webhooks.sealingKey,
      allowLoopback: webhooks.allowLoopback,
      timeoutMs: webhooks.attemptTimeoutMs,
      maxResponseBytes: 65_536,
    },
    logger: deps.logger,
    holder: deps.holder,
    leaseMs: webhooks.leaseMs,
    tickMs: webhooks.tickMs,
  });
}
