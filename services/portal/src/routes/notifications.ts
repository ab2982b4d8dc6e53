/**
 * The notifications page: where notices go (the account's email, a webhook URL whose signing secret
 * is shown once), the low-balance threshold (billing applies it to every key of the account), which
 * optional notices are on, a button that sends a test notice through both, and the webhook's
 * delivery log (each attempt's time, status code and error; @rda/webhooks outbox), with redelivery
 * and secret rotation, as a monitor's webhook has.
 */
import { KEY_LIMITS } from "@rda/contracts";
import { type OutboxDelivery, urlProblem } from "@rda/webhooks";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { NOTICE_KINDS, OPTIONAL_KINDS } from "../notices/notice-kinds.ts";
import { NOTICE_SECRET_OVERLAP_MS } from "../notices/notice-webhook.ts";
import { uniqueCrossing } from "../notices/notifier.ts";
import { billingFailed } from "./keys.ts";

const URL_MAX = 2_000;
/** Deliveries the page lists at most. */
const LOG_PAGE = 50;

/** The states the page shows: one the receiver accepted is delivered (the outbox is finishing it). */
type ShownState = Exclude<OutboxDelivery["state"], "accepted">;

const DELIVERY_STATE_LABELS: Record<ShownState, string> = {
  pending: "Sending",
  delivered: "Delivered",
  failed: "Failed",
};

/** Epoch ms as the page shows them, to the second, with the machine-readable form beside. */
function timeOf(epochMs: number) {
  const iso = new Date(epochMs).toISOString();
  return { iso, text: `${iso.slice(0, 19).replace("T", " ")} UTC` };
}

/** The webhook's log as the page lists it: newest delivery first, each attempt in order. */
function logRows(deliveries: readonly OutboxDelivery[]) {
  return deliveries.map((delivery) => {
    const state: ShownState = delivery.state === "accepted" ? "delivered" : delivery.state;
    return {
      id: delivery.id,
      type: delivery.type,
      state,
      stateLabel: DELIVERY_STATE_LABELS[state],
      created: timeOf(delivery.created_at),
      nextAttempt:
        delivery.state === "pending" && delivery.next_attempt_at > 0
          ? timeOf(delivery.next_attempt_at)
          : undefined,
      // Only what left the queue is sent again (an accepted one is still finishing).
      redeliverable: delivery.state === "delivered" || delivery.state === "failed",
      attempts: delivery.attempts.map((attempt) => ({
        at: timeOf(attempt.at),
        statusCode: attempt.status,
        latencyMs: attempt.latency_ms,
        error: attempt.error,
      })),
    };
  });
}

async function renderNotifications(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  const account = await ctx.accounts.get(signedIn.accountId);
  if (!account) return sendPageError(ctx, reply, "not_found");
  const settings = await ctx.notices.settings.read(signedIn.accountId);
  const log = await ctx.notices.outbox.log(signedIn.accountId, LOG_PAGE, Date.now());
  return renderPage(
    ctx,
    reply,
    "notifications",
    {
      title: "Notifications",
      nav: "notifications",
      email: account.email,
      settings,
      optionalKinds: OPTIONAL_KINDS.map((kind) => ({
        kind,
        label: NOTICE_KINDS[kind].label,
        on: !settings.off.has(kind),
      })),
      webhooksEnabled: ctx.notices.webhooksEnabled,
      thresholdValue: settings.lowBalanceThreshold ?? "",
      log: logRows(log),
      ...extra,
    },
    status,
  );
}

export function notificationsPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    return renderNotifications(ctx, reply, signedIn, { notice: noticeFor(request.query) });
  };
}

export function saveThreshold(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const typed = (field(request.body, "low_balance_threshold") ?? "").trim().replace(/[,_\s]/g, "");
    const threshold = typed === "" ? null : /^\d{1,10}$/.test(typed) ? Number(typed) : Number.NaN;
    if (threshold !== null && !(threshold >= 0 && threshold <= KEY_LIMITS.credits.max)) {
      const thresholdError =
        "Give the threshold as a whole number of credits, or leave it empty for the default.";
      return renderNotifications(ctx, reply, signedIn, { thresholdError, thresholdValue: typed }, 400);
    }
    const applied = await ctx.billing.setLowBalanceThreshold(signedIn.accountId, threshold);
    if (!applied.ok) return billingFailed(ctx, reply, applied.error);
    await ctx.notices.settings.setThreshold(signedIn.accountId, threshold);
    return reply.redirect("/notifications?done=threshold-saved", 303);
  };
}

export function saveKinds(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const off = OPTIONAL_KINDS.filter((kind) => field(request.body, kind) !== "on");
    const before = await ctx.notices.settings.read(signedIn.accountId);
    await ctx.notices.settings.setKinds(signedIn.accountId, off, OPTIONAL_KINDS);
    // A kind switched back on: the unsubscribe links of earlier emails no longer switch it off.
    for (const kind of before.off)
      if (!off.includes(kind)) await ctx.notices.unsubscribe?.revoke(signedIn.accountId, kind);
    return reply.redirect("/notifications?done=notices-saved", 303);
  };
}

export function saveWebhook(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    if (!ctx.notices.webhooksEnabled) return sendPageError(ctx, reply, "not_found");
    const url = (field(request.body, "webhook_url") ?? "").trim();
    const problem = url.length > URL_MAX ? "too long" : urlProblem(url, ctx.notices.allowLoopbackWebhooks);
    if (problem) {
      const webhookError = `Give an https URL of a public server (${problem === "not a URL" ? "that is not a URL" : `that one is ${problem}`}).`;
      return renderNotifications(ctx, reply, signedIn, { webhookError, webhookValue: url }, 400);
    }
    const secret = await ctx.notices.settings.setWebhook(signedIn.accountId, url);
    request.log.info({ account_id: signedIn.accountId }, "notice webhook set");
    // POST-redirect-GET, as for a key's secret (routes/keys.ts): a reload never sends the form again.
    await ctx.pendingSecrets.keep(signedIn.id, NOTICE_WEBHOOK_SECRET, { secret, made: "created" });
    return reply.redirect("/notifications/webhook/secret", 303);
  };
}

/** The name the notice webhook's new secret waits under (store/pending-secrets.ts), per session. */
const NOTICE_WEBHOOK_SECRET = "notice-webhook";

/** The notifications page with the webhook's new secret, once; opened again, the page with a notice. */
export function noticeWebhookSecretPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const pending = await ctx.pendingSecrets.take(signedIn.id, NOTICE_WEBHOOK_SECRET);
    if (!pending) return reply.redirect("/notifications?done=notice-webhook-secret-shown", 303);
    return renderNotifications(ctx, reply, signedIn, { newSecret: pending.secret });
  };
}

export function removeWebhook(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    await ctx.notices.settings.removeWebhook(signedIn.accountId);
    return reply.redirect("/notifications?done=webhook-removed", 303);
  };
}

export function sendTestNotice(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const sent = await ctx.notices.notifier.notify(signedIn.accountId, {
      kind: "test",
      crossing: uniqueCrossing(),
      subject: "A test notice from the Reddit Data API",
      paragraphs: [
        "This is the test notice you asked for. Notices about your keys and payments arrive like this.",
      ],
      data: { message: "test notice" },
    });
    const done =
      sent.outcome === "not_yet"
        ? "test-not-sent"
        : sent.outcome === "rate_limited"
          ? "test-limited"
          : sent.outcome === "sent" && sent.webhookQueued
            ? "test-queued"
            : "test-sent";
    return reply.redirect(`/notifications?done=${done}`, 303);
  };
}

/** A new signing secret, shown once; the old one still signs for a day (NOTICE_SECRET_OVERLAP_MS). */
export function rotateNoticeWebhookSecret(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    if (!ctx.notices.webhooksEnabled) return sendPageError(ctx, reply, "not_found");
    const secret = await ctx.notices.settings.rotateSecret(signedIn.accountId, NOTICE_SECRET_OVERLAP_MS);
    if (secret === undefined) return reply.redirect("/notifications?done=webhook-removed", 303);
    request.log.info({ account_id: signedIn.accountId }, "notice webhook secret rotated");
    await ctx.pendingSecrets.keep(signedIn.id, NOTICE_WEBHOOK_SECRET, { secret, made: "rotated" });
    return reply.redirect("/notifications/webhook/secret", 303);
  };
}

/** A logged delivery sent again, first in line, with the same `webhook-id`. */
export function redeliverNotice(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { deliveryId: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const { deliveryId } = request.params;
    if (!/^ntc_[0-9a-f]{1,64}$/.test(deliveryId)) return sendPageError(ctx, reply, "not_found");
    const queued = await ctx.notices.outbox.redeliver(signedIn.accountId, deliveryId, Date.now());
    return reply.redirect(
      `/notifications?done=${queued ? "notice-redelivering" : "notice-not-redelivered"}`,
      303,
    );
  };
}
