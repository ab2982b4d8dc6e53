/**
 * Sends a notice to an account: once per crossing however many replicas see it or however often it
 * is delivered, optional kinds (and test notices) within a per-account hourly limit, optional ones only when not switched off, by
 * email (plain text and HTML) and, where the account set one, by a signed webhook: queued in the
 * account's webhook outbox (notice-webhook.ts), which retries it and logs every attempt.
 * Receipts and payment problems are always sent.
 *
 * Each crossing has a record (a Redis hash, kept 90 days) of what was done: a step is marked only
 * after it succeeded, so a mail server that refuses leaves the email to do, and the caller retries
 * (`not_yet`); one replica at a time works on a crossing (service-kit's lease, held briefly). The webhook is queued
 * once per crossing (the outbox retries it), the email is tried until it goes.
 */
import { createHash, randomUUID } from "node:crypto";
import { type Logger, type PortalRedisKeys, type Redis, withLease } from "@rda/service-kit";
import { newOutboxDelivery, type WebhookOutbox } from "@rda/webhooks";
import type { Mailer } from "../mail/mailer.ts";
import type { AccountStore } from "../store/accounts.ts";
import { noticeEmail } from "./notice-email.ts";
import {
  isHourlyLimited,
  NOTICE_KINDS,
  type Notice,
  type NoticeKind,
  WEBHOOK_TYPES,
} from "./notice-kinds.ts";
import type { NoticeSettingsStore } from "./notice-settings.ts";

const RECORD_TTL_SECONDS = 90 * 86_400;
/** Longer than one email takes to send. */
const CLAIM_TTL_MS = 120_000;

export interface NotifierDeps {
  readonly redis: Redis;
  readonly keys: PortalRedisKeys;
  readonly accounts: AccountStore;
  readonly settings: NoticeSettingsStore;
  readonly mailer: Mailer;
  readonly logger: Logger;
  /** PORTAL_URL, for the links in the emails. */
  readonly portalUrl: string;
  /** The one-click unsubscribe address of an optional kind, when links can be signed. */
  readonly unsubscribeUrl?: (accountId: string, kind: NoticeKind) => Promise<string>;
  /** Optional notices an account may get per hour (NOTICES_PER_ACCOUNT_PER_HOUR). */
  readonly perAccountPerHour: number;
  /** The notice webhooks' outbox (notice-webhook.ts): a notice's webhook is queued there. */
  readonly outbox: WebhookOutbox;
}

export type NotifyOutcome =
  | { readonly outcome: "sent"; readonly email: boolean; readonly webhookQueued: boolean }
  /** Not sent yet (the mail server refused, or another replica is at it): ask again later. */
  | { readonly outcome: "not_yet"; readonly reason: string }
  | { readonly outcome: "already_sent" | "switched_off" | "rate_limited" | "no_account" };

export interface Notifier {
  notify(accountId: string, notice: Notice): Promise<NotifyOutcome>;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  return {
    async notify(accountId, notice) {
      const crossing = createHash("sha256")
        .update(`${accountId}|${notice.kind}|${notice.crossing}`)
        .digest("hex");
      const record = deps.keys.notice(crossing);
      if ((await deps.redis.hgetall(record)).done) return { outcome: "already_sent" };
      const sent = await withLease(deps.redis, deps.keys.noticeClaim(crossing), CLAIM_TTL_MS, () =>
        sendClaimed(deps, accountId, notice, crossing, record),
      );
      return sent.held ? sent.value : { outcome: "not_yet", reason: "another replica is sending it" };
    },
  };
}

async function sendClaimed(
  deps: NotifierDeps,
  accountId: string,
  notice: Notice,
  crossing: string,
  record: string,
): Promise<NotifyOutcome> {
  const done = await deps.redis.hgetall(record);
  if (done.done) return { outcome: "already_sent" };
  const mark = async (fields: Record<string, string>) => {
    await deps.redis.hset(record, fields);
    await deps.redis.expire(record, RECORD_TTL_SECONDS);
  };
  const account = await deps.accounts.get(accountId);
  if (!account) return { outcome: "no_account" };
  const settings = await deps.settings.read(accountId);
  const optional = NOTICE_KINDS[notice.kind].optional;
  if (optional && settings.off.has(notice.kind)) return { outcome: "switched_off" };
  if (isHourlyLimited(notice.kind) && !done.admitted) {
    if (!(await withinHourlyLimit(deps, accountId))) {
      await mark({ done: "rate_limited" });
      deps.logger.warn({ account_id: accountId, kind: notice.kind }, "notice dropped: hourly limit");
      return { outcome: "rate_limited" };
    }
    await mark({ admitted: "1" });
  }
  let webhookQueued = false;
  if (!done.webhook && settings.webhookUrl && settings.webhookSecret) {
    const id = `ntc_${crossing.slice(0, 32)}`;
    await deps.outbox.enqueue(
      newOutboxDelivery(accountId, id, WEBHOOK_TYPES[notice.kind], notice.data, Date.now()),
    );
    await mark({ webhook: "queued" });
    webhookQueued = true;
  }
  if (!done.email) {
    const unsubscribe = optional ? await deps.unsubscribeUrl?.(accountId, notice.kind) : undefined;
    const mailed = await deps.mailer.send(noticeEmail(account.email, notice, deps.portalUrl, unsubscribe));
    if (!mailed.ok) {
      deps.logger.warn(
        { account_id: accountId, kind: notice.kind, reason: mailed.error },
        "notice email not sent yet",
      );
      return { outcome: "not_yet", reason: mailed.error };
    }
    await mark({ email: "sent" });
  }
  await mark({ done: "sent" });
  deps.logger.info(
    { account_id: accountId, kind: notice.kind, webhook: webhookQueued ? "queued" : done.webhook },
    "notice sent",
  );
  return { outcome: "sent", email: true, webhookQueued };
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
