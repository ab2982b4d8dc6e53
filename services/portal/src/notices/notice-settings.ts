/**
 * An account's notice settings in the portal's Redis: the webhook endpoint (its signing secret only
 * sealed, notices/…/secrets in @rda/webhooks), the low-balance threshold it chose, and which
 * optional kinds it switched off. The email address is the account's own.
 */
import type { PortalRedisKeys, Redis } from "@rda/service-kit";
import { newWebhookSecret, openSecret, type SealedSecrets, sealSecret } from "@rda/webhooks";
import type { NoticeKind } from "./notice-kinds.ts";

export interface NoticeSettings {
  readonly webhookUrl: string | null;
  /** Null when there is no endpoint, or the sealing key cannot open it (it was changed). */
  readonly webhookSecret: string | null;
  /** Credits; null: the default (10 % of the last top-up, or 100). */
  readonly lowBalanceThreshold: number | null;
  readonly off: ReadonlySet<NoticeKind>;
}

export interface NoticeSettingsStore {
  read(accountId: string): Promise<NoticeSettings>;
  /** A new endpoint and a new secret, returned this once to show. */
  setWebhook(accountId: string, url: string): Promise<string>;
  removeWebhook(accountId: string): Promise<void>;
  /**
   * A new secret (returned, to be shown once); the old one still signs for `overlapMs`, so a
   * receiver can switch without losing a delivery. Undefined when there is no webhook.
   */
  rotateSecret(accountId: string, overlapMs: number): Promise<string | undefined>;
  /** Where the webhook outbox sends: the URL and its sealed secrets; undefined without a webhook. */
  endpoint(accountId: string): Promise<(SealedSecrets & { url: string }) | undefined>;
  setThreshold(accountId: string, threshold: number | null): Promise<void>;
  setKinds(accountId: string, off: readonly NoticeKind[], optional: readonly NoticeKind[]): Promise<void>;
  /** One kind off (an unsubscribe link). */
  switchOff(accountId: string, kind: NoticeKind): Promise<void>;
}

export function noticeSettingsStore(
  redis: Redis,
  keys: PortalRedisKeys,
  sealingKey: Buffer | undefined,
): NoticeSettingsStore {
  const key = (accountId: string) => keys.noticeSettings(accountId);
  return {
    async read(accountId) {
      const fields = await redis.hgetall(key(accountId));
      const off = new Set(
        Object.entries(fields)
          .filter(([field, value]) => field.startsWith("off:") && value === "1")
          .map(([field]) => field.slice(4) as NoticeKind),
      );
      let webhookSecret: string | null = null;
      if (fields.webhook_secret && sealingKey) {
        try {
          webhookSecret = openSecret(sealingKey, fields.webhook_secret);
        } catch {
          webhookSecret = null;
        }
      }
      const threshold = fields.low_balance_threshold ? Number(fields.low_balance_threshold) : null;
      return {
        webhookUrl: fields.webhook_url || null,
        webhookSecret,
        lowBalanceThreshold: threshold,
        off,
      };
    },
    async setWebhook(accountId, url) {
      if (!sealingKey) throw new Error("webhooks need WEBHOOK_SEALING_KEY");
      const secret = newWebhookSecret();
      await redis.hset(key(accountId), {
        webhook_url: url,
        webhook_secret: sealSecret(sealingKey, secret),
        webhook_previous_secret: "",
        webhook_previous_until: 0,
      });
      return secret;
    },
    async removeWebhook(accountId) {
      await redis.hset(key(accountId), {
        webhook_url: "",
        webhook_secret: "",
        webhook_previous_secret: "",
        webhook_previous_until: 0,
      });
    },
    async rotateSecret(accountId, overlapMs) {
      if (!sealingKey) throw new Error("webhooks need WEBHOOK_SEALING_KEY");
      const fields = await redis.hgetall(key(accountId));
      if (!fields.webhook_url || !fields.webhook_secret) return undefined;
      const secret = newWebhookSecret();
      await redis.hset(key(accountId), {
        webhook_secret: sealSecret(sealingKey, secret),
        webhook_previous_secret: fields.webhook_secret,
        webhook_previous_until: Date.now() + overlapMs,
      });
      return secret;
    },
    async endpoint(accountId) {
      const fields = await redis.hgetall(key(accountId));
      if (!fields.webhook_url || !fields.webhook_secret) return undefined;
      return {
        url: fields.webhook_url,
        secret: fields.webhook_secret,
        previous_secret: fields.webhook_previous_secret || null,
        previous_until: Number(fields.webhook_previous_until || 0),
      };
    },
    async setThreshold(accountId, threshold) {
      await redis.hset(key(accountId), {
        low_balance_threshold: threshold === null ? "" : String(threshold),
      });
    },
    async setKinds(accountId, off, optional) {
      const fields = Object.fromEntries(
        optional.map((kind) => [`off:${kind}`, off.includes(kind) ? "1" : "0"]),
      );
      await redis.hset(key(accountId), fields);
    },
    async switchOff(accountId, kind) {
      await redis.hset(key(accountId), `off:${kind}`, "1");
    },
  };
}
