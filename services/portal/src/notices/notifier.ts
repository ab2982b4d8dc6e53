/**
 * Sends a notice to an account: once per crossing however many replicas see it (`SET NX` on the
 * crossing's hash, kept 90 days), optional kinds within a per-account hourly limit and only when
 * not switched off, by email (plain text and HTML) and, where the account set one, by a signed
 * webhook (@rda/webhooks). Receipts and payment problems are always sent.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Logger, PortalRedisKeys, Redis } from "@rda/service-kit";
import { type DeliveryResult, deliverWebhook } from "@rda/webhooks";
import type { Mailer } from "../mail/mailer.ts";
import type { AccountStore } from "../store/accounts.ts";
import { noticeEmail } from "./notice-email.ts";
import { NOTICE_KINDS, type Notice, WEBHOOK_TYPES } from "./notice-kinds.ts";
import type { NoticeSettingsStore } from "./notice-settings.ts";

const SENT_TTL_SECONDS = 90 * 86_400;

export interface NotifierDeps {
  readonly redis: Redis;
  readonly keys: PortalRedisKeys;
  readonly accounts: AccountStore;
  readonly settings: NoticeSettingsStore;
  readonly mailer: Mailer;
  readonly logger: Logger;
  /** PORTAL_URL, for the links in the emails. */
  readonly portalUrl: string;
  /** Optional notices an account may get per hour (NOTICES_PER_ACCOUNT_PER_HOUR). */
  readonly perAccountPerHour: number;
  /** WEBHOOKS_ALLOW_LOOPBACK: local development only. */
  readonly allowLoopbackWebhooks: boolean;
}

export type NotifyOutcome =
  | { readonly outcome: "sent"; readonly email: boolean; readonly webhook: DeliveryResult | null }
  | { readonly outcome: "already_sent" | "switched_off" | "rate_limited" | "no_account" };

export interface Notifier {
  notify(accountId: string, notice: Notice): Promise<NotifyOutcome>;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  return {
    async notify(accountId, notice) {
      const account = await deps.accounts.get(accountId);
      if (!account) return { outcome: "no_account" };
      const settings = await deps.settings.read(accountId);
      const optional = NOTICE_KINDS[notice.kind].optional;
      if (optional && settings.off.has(notice.kind)) return { outcome: "switched_off" };
      const crossing = createHash("sha256")
        .update(`${accountId}|${notice.kind}|${notice.crossing}`)
        .digest("hex");
      const first = await deps.redis.set(deps.keys.noticeSent(crossing), "1", "EX", SENT_TTL_SECONDS, "NX");
      if (first !== "OK") return { outcome: "already_sent" };
      if (optional && !(await withinHourlyLimit(deps, accountId))) {
        deps.logger.warn({ account_id: accountId, kind: notice.kind }, "notice dropped: hourly limit");
        return { outcome: "rate_limited" };
      }
      const mail = noticeEmail(account.email, notice, deps.portalUrl);
      const mailed = await deps.mailer.send(mail);
      if (!mailed.ok)
        deps.logger.warn(
          { account_id: accountId, kind: notice.kind, reason: mailed.error },
          "notice email failed",
        );
      let webhook: DeliveryResult | null = null;
      if (settings.webhookUrl && settings.webhookSecret) {
        webhook = await deliverWebhook(
          { url: settings.webhookUrl, secret: settings.webhookSecret },
          { id: `ntc_${crossing.slice(0, 32)}`, type: WEBHOOK_TYPES[notice.kind], data: notice.data },
          { allowLoopback: deps.allowLoopbackWebhooks },
        );
        if (webhook.outcome !== "delivered")
          deps.logger.warn(
            { account_id: accountId, kind: notice.kind, ...webhook },
            "notice webhook not delivered",
          );
      }
      deps.logger.info(
        { account_id: accountId, kind: notice.kind, email: mailed.ok, webhook: webhook?.outcome },
        "notice sent",
      );
      return { outcome: "sent", email: mailed.ok, webhook };
    },
  };
}

/** A fixed one-hour window per account, shared by every replica. */
async function withinHourlyLimit(deps: NotifierDeps, accountId: string): Promise<boolean> {
  const key = deps.keys.noticesThisHour(accountId);
  const count = await deps.redis.incr(key);
  if (count === 1) await deps.redis.expire(key, 3_600);
  return count <= deps.perAccountPerHour;
}

/** A crossing that is never the same twice: for the test button. */
export const uniqueCrossing = () => randomUUID();
