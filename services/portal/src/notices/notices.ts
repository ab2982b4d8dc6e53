/**
 * The notices' parts, built the same way by the web process (the settings page, its test notice,
 * the delivery log) and by the notices worker (notices-worker.ts: events in, webhooks out).
 */
import type { Logger, PortalRedisKeys, Redis } from "@rda/service-kit";
import type { WebhookOutbox } from "@rda/webhooks";
import type { Mailer } from "../mail/mailer.ts";
import type { PortalSettings } from "../settings.ts";
import type { AccountStore } from "../store/accounts.ts";
import { type NoticeSettingsStore, noticeSettingsStore } from "./notice-settings.ts";
import { noticeWebhookOutbox } from "./notice-webhook.ts";
import { createNotifier, type Notifier } from "./notifier.ts";
import { type UnsubscribeLinks, unsubscribeLinks } from "./unsubscribe-links.ts";

export interface NoticeParts {
  readonly settings: NoticeSettingsStore;
  readonly notifier: Notifier;
  /** The notice webhooks' outbox: queued by the notifier, sent by the worker, its log on the page. */
  readonly outbox: WebhookOutbox;
  /** One-click unsubscribe links; absent without a sealing key (emails then link the settings page). */
  readonly unsubscribe?: UnsubscribeLinks;
  /** False without a sealing key: the page then says webhooks are not set up here. */
  readonly webhooksEnabled: boolean;
  readonly allowLoopbackWebhooks: boolean;
}

export function buildNoticeParts(deps: {
  readonly redis: Redis;
  readonly keys: PortalRedisKeys;
  readonly accounts: AccountStore;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly settings: PortalSettings;
}): NoticeParts {
  const { redis, keys, settings, logger } = deps;
  const sealingKey = settings.notices?.sealingKey;
  const noticeSettings = noticeSettingsStore(redis, keys, sealingKey);
  const allowLoopbackWebhooks = settings.notices?.allowLoopbackWebhooks ?? false;
  if (allowLoopbackWebhooks)
    logger.warn("WEBHOOKS_ALLOW_LOOPBACK is on: webhooks may go to http://127.0.0.1. Never in production.");
  const unsubscribe = sealingKey && unsubscribeLinks(redis, keys, sealingKey, settings.publicUrl);
  const outbox = noticeWebhookOutbox(redis, keys);
  const notifier = createNotifier({
    redis,
    keys,
    accounts: deps.accounts,
    settings: noticeSettings,
    mailer: deps.mailer,
    logger,
    portalUrl: settings.publicUrl,
    unsubscribeUrl: unsubscribe ? unsubscribe.url : undefined,
    perAccountPerHour: settings.notices?.perAccountPerHour ?? 20,
    outbox,
  });
  return {
    settings: noticeSettings,
    notifier,
    outbox,
    ...(unsubscribe && { unsubscribe }),
    webhooksEnabled: sealingKey !== undefined,
    allowLoopbackWebhooks,
  };
}
