/**
 * The notices worker, a process of its own (notices-main.ts), apart from the portal's web process:
 * it takes notice events from the shared durable JetStream consumer and sends each notice (email,
 * and the webhook queued in the account's outbox), and it runs the notice webhooks' delivery loop
 * (@rda/webhooks outbox: retry window, delivery log, lease per account). Several replicas share the
 * work: the consumer hands each event to one, and an account's webhook lease to one at a time.
 */
import { randomUUID } from "node:crypto";
import type { Subjects } from "@rda/contracts";
import type { Logger, NatsConnection, PortalRedisKeys, Redis } from "@rda/service-kit";
import type { Mailer } from "./mail/mailer.ts";
import { consumeNoticeEvents } from "./notices/crossing-notices.ts";
import {
  DEFAULT_NOTICE_WEBHOOK_SETTINGS,
  type NoticeWebhookSettings,
  startNoticeWebhookLoop,
} from "./notices/notice-webhook.ts";
import { buildNoticeParts } from "./notices/notices.ts";
import type { PortalSettings } from "./settings.ts";
import { createAccountStore } from "./store/accounts.ts";

export interface NoticesWorkerDeps {
  readonly redis: Redis;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly keys: PortalRedisKeys;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly settings: PortalSettings;
  /** Shorter webhook times, for tests; production's otherwise. */
  readonly webhooks?: Partial<NoticeWebhookSettings>;
}

export interface RunningNoticesWorker {
  stop(): Promise<void>;
}

export async function startNoticesWorker(deps: NoticesWorkerDeps): Promise<RunningNoticesWorker> {
  const { redis, keys, settings, logger } = deps;
  const accounts = createAccountStore({ redis, keys, now: Date.now });
  const notices = buildNoticeParts({ redis, keys, accounts, mailer: deps.mailer, logger, settings });
  const events = await consumeNoticeEvents({
    nats: deps.nats,
    subjects: deps.subjects,
    notifier: notices.notifier,
    logger,
    portalUrl: settings.publicUrl,
    replicas: settings.natsReplicas ?? 1,
  });
  const webhookLoop = startNoticeWebhookLoop({
    outbox: notices.outbox,
    settings: notices.settings,
    webhooks: {
      ...DEFAULT_NOTICE_WEBHOOK_SETTINGS,
      sealingKey: settings.notices?.sealingKey,
      allowLoopback: notices.allowLoopbackWebhooks,
      ...deps.webhooks,
    },
    logger,
    holder: `notices-${randomUUID()}`,
  });
  return {
    async stop() {
      await events.stop();
      await webhookLoop.stop();
    },
  };
}
