/**
 * A monitor's own page (docs/api.md#monitor-webhooks): its status, its webhook's URL and delivery
 * log (each attempt's time, status code, latency and error), with buttons to send a test event,
 * redeliver a failed batch and rotate the signing secret; and the page that shows a new signing
 * secret once. Every request asks the gateway as the key's own API calls do (monitor-owner.ts); a
 * monitor the key does not hold is the monitors service's 404, as an unknown one is.
 */
import { MONITOR_DELIVERY_ID } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { pythonWebhookVerificationSnippet, webhookVerificationSnippet } from "../snippets.ts";
import type { PendingSecret } from "../store/pending-secrets.ts";
import { sdkTarballUrl } from "./keys.ts";
import {
  askMonitors,
  type Loaded,
  MONITOR_ID,
  MONITOR_STATUS_LABELS,
  type MonitorParams,
  ownerOf,
  type Refusal,
  renderRefusalPage,
} from "./monitor-owner.ts";

type DeliveryParams = { Params: { id: string; monitorId: string; deliveryId: string } };

/** A monitor as the monitors service lists it (docs/api.md#monitors, "A monitor object"). */
interface MonitorView {
  readonly id: string;
  readonly kind: string;
  readonly subreddit?: string;
  readonly author?: string;
  readonly phrase?: string | null;
  readonly interval_seconds: number;
  readonly backfill_from?: number | null;
  readonly webhook_url?: string | null;
  readonly status: string;
  readonly items_collected?: number;
  readonly items_pulled?: number;
}

/** A logged delivery as `monitors.deliveries` answers it. */
interface DeliveryView {
  readonly id: string;
  readonly type: "monitor.items" | "monitor.test";
  readonly items: number;
  readonly state: string;
  readonly created_at: number;
  readonly next_attempt_at: number | null;
  readonly attempts: readonly {
    at: number;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
  }[];
}

const DELIVERY_STATE_LABELS: Record<string, string> = {
  pending: "Sending",
  delivered: "Delivered",
  failed: "Failed",
};

/** Epoch seconds as the page shows them, to the second, with the machine-readable form beside. */
function timeOf(epochSeconds: number) {
  const iso = new Date(epochSeconds * 1000).toISOString();
  return { iso, text: `${iso.slice(0, 19).replace("T", " ")} UTC` };
}

/** The log as the page lists it: newest delivery first, each attempt in the order it was made. */
function logRows(deliveries: readonly DeliveryView[]) {
  return deliveries.map((delivery) => ({
    id: delivery.id,
    what:
      delivery.type === "monitor.test"
        ? "Test event"
        : `Batch of ${delivery.items} item${delivery.items === 1 ? "" : "s"}`,
    state: delivery.state,
    stateLabel: DELIVERY_STATE_LABELS[delivery.state] ?? delivery.state,
    created: timeOf(delivery.created_at),
    nextAttempt: delivery.next_attempt_at === null ? undefined : timeOf(delivery.next_attempt_at),
    redeliverable: delivery.type === "monitor.items" && delivery.state === "failed",
    attempts: delivery.attempts.map((attempt) => ({
      at: timeOf(attempt.at),
      statusCode: attempt.status_code,
      latencyMs: attempt.latency_ms,
      error: attempt.error,
    })),
  }));
}

const monitorPath = (loaded: Loaded, monitorId: string) => `/keys/${loaded.key.id}/monitors/${monitorId}`;

const monitorApi = (monitorId: string, rest = "") => `/v1/monitors/${monitorId}${rest}`;

/** The key's monitor with this id; another key's, or an unknown one, is the not-found page. */
async function findMonitor(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  monitorId: string,
): Promise<{ readonly sent: FastifyReply } | { readonly monitor: MonitorView }> {
  if (!MONITOR_ID.test(monitorId)) return { sent: await sendPageError(ctx, reply, "not_found") };
  const read = await askMonitors(ctx, reply, loaded, "GET", monitorApi(monitorId));
  if ("sent" in read) return read;
  if ("refused" in read)
    return { sent: await renderRefusalPage(ctx, reply, read.refused, "The monitor cannot be shown") };
  return { monitor: (read.data as { monitor: MonitorView }).monitor };
}

type MonitorLoaded =
  | { readonly sent: FastifyReply }
  | { readonly signedIn: SignedIn; readonly loaded: Loaded; readonly monitor: MonitorView };

/** The key and its monitor for a request on one monitor, or the answer already sent. */
async function loadMonitor(
  ctx: PortalContext,
  request: FastifyRequest<MonitorParams>,
  reply: FastifyReply,
): Promise<MonitorLoaded> {
  const signedIn = requireSignIn(request, reply);
  if (!signedIn) return { sent: reply };
  const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
  if ("sent" in loaded) return { sent: loaded.sent };
  const found = await findMonitor(ctx, reply, loaded, request.params.monitorId);
  if ("sent" in found) return { sent: found.sent };
  return { signedIn, loaded, monitor: found.monitor };
}

async function renderMonitor(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  monitor: MonitorView,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  const hasWebhook = typeof monitor.webhook_url === "string";
  let deliveries: DeliveryView[] = [];
  if (hasWebhook) {
    const log = await askMonitors(ctx, reply, loaded, "GET", monitorApi(monitor.id, "/deliveries"));
    if ("sent" in log) return log.sent;
    if ("refused" in log)
      return renderRefusalPage(ctx, reply, log.refused, "The delivery log cannot be shown");
    deliveries = (log.data as { deliveries: DeliveryView[] }).deliveries;
  }
  const watches = `${monitor.kind === "comment" ? "Comments" : "Posts"} of ${
    monitor.subreddit !== undefined ? `r/${monitor.subreddit}` : `u/${monitor.author}`
  }`;
  return renderPage(
    ctx,
    reply,
    "monitor",
    {
      title: `Monitor: ${watches}`,
      nav: "keys",
      key: loaded.key,
      monitor,
      watches,
      statusLabel: MONITOR_STATUS_LABELS[monitor.status] ?? monitor.status,
      backfillFrom: typeof monitor.backfill_from === "number" ? timeOf(monitor.backfill_from) : undefined,
      hasWebhook,
      log: logRows(deliveries),
      ...extra,
    },
    status,
  );
}

/**
 * A refusal of a button on the monitor's page (not found is the 404 page already): its sentence
 * above the log, the monitor read only now, to draw the page.
 */
async function refused(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  monitorId: string,
  answer: Refusal,
  title: string,
) {
  const found = await findMonitor(ctx, reply, loaded, monitorId);
  if ("sent" in found) return found.sent;
  if (answer.retryAfterSeconds !== undefined) reply.header("retry-after", String(answer.retryAfterSeconds));
  const error = { title, message: answer.error, param: answer.param };
  return renderMonitor(ctx, reply, loaded, found.monitor, { error }, answer.status);
}

/**
 * A button's request: the key and the monitor's id, without reading the monitor first (each call
 * spends the key's rate limit as its API calls do): the button's own call says whether the key
 * holds it.
 */
async function loadButton(
  ctx: PortalContext,
  request: FastifyRequest<MonitorParams>,
  reply: FastifyReply,
): Promise<{ readonly sent: FastifyReply } | { signedIn: SignedIn; loaded: Loaded; monitorId: string }> {
  const signedIn = requireSignIn(request, reply);
  if (!signedIn) return { sent: reply };
  const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
  if ("sent" in loaded) return { sent: loaded.sent };
  const { monitorId } = request.params;
  if (!MONITOR_ID.test(monitorId)) return { sent: await sendPageError(ctx, reply, "not_found") };
  return { signedIn, loaded, monitorId };
}

export function monitorPage(ctx: PortalContext) {
  return async (request: FastifyRequest<MonitorParams>, reply: FastifyReply) => {
    const found = await loadMonitor(ctx, request, reply);
    if ("sent" in found) return found.sent;
    return renderMonitor(ctx, reply, found.loaded, found.monitor, { notice: noticeFor(request.query) });
  };
}

/** Sends a signed test event now; the page it leads back to lists it in the delivery log. */
export function sendTestEvent(ctx: PortalContext) {
  return async (request: FastifyRequest<MonitorParams>, reply: FastifyReply) => {
    const found = await loadButton(ctx, request, reply);
    if ("sent" in found) return found.sent;
    const { loaded, monitorId } = found;
    const answer = await askMonitors(ctx, reply, loaded, "POST", monitorApi(monitorId, "/test"));
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer)
      return refused(ctx, reply, loaded, monitorId, answer.refused, "The test event was not sent");
    const { delivery } = answer.data as { delivery: DeliveryView };
    const done = delivery.state === "delivered" ? "webhook-test-delivered" : "webhook-test-failed";
    return reply.redirect(`${monitorPath(loaded, monitorId)}?done=${done}#delivery-log`, 303);
  };
}

export function redeliver(ctx: PortalContext) {
  return async (request: FastifyRequest<DeliveryParams>, reply: FastifyReply) => {
    const found = await loadButton(ctx, request, reply);
    if ("sent" in found) return found.sent;
    const { loaded, monitorId } = found;
    const { deliveryId } = request.params;
    if (!MONITOR_DELIVERY_ID.test(deliveryId)) return sendPageError(ctx, reply, "not_found");
    const path = monitorApi(monitorId, `/deliveries/${deliveryId}/redeliver`);
    const answer = await askMonitors(ctx, reply, loaded, "POST", path);
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer)
      return refused(ctx, reply, loaded, monitorId, answer.refused, "The batch was not sent again");
    request.log.info({ key_id: loaded.key.id, monitor_id: monitorId }, "monitor batch redelivered");
    return reply.redirect(`${monitorPath(loaded, monitorId)}?done=redelivery-queued#delivery-log`, 303);
  };
}

export function rotateWebhookSecret(ctx: PortalContext) {
  return async (request: FastifyRequest<MonitorParams>, reply: FastifyReply) => {
    const found = await loadButton(ctx, request, reply);
    if ("sent" in found) return found.sent;
    const { signedIn, loaded, monitorId } = found;
    const answer = await askMonitors(ctx, reply, loaded, "POST", monitorApi(monitorId, "/rotate-secret"));
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer)
      return refused(ctx, reply, loaded, monitorId, answer.refused, "The secret was not rotated");
    const { webhook_secret, previous_secret_expires_at } = answer.data as {
      webhook_secret: string;
      previous_secret_expires_at: number;
    };
    request.log.info({ key_id: loaded.key.id, monitor_id: monitorId }, "monitor webhook secret rotated");
    return showWebhookSecretAfterRedirect(ctx, reply, signedIn, loaded.key.id, monitorId, {
      secret: webhook_secret,
      made: "rotated",
      previous_expires_at: previous_secret_expires_at,
    });
  };
}

/**
 * POST-redirect-GET, as for a key's secret (routes/keys.ts): the form's answer is a redirect to the
 * page that shows the webhook's secret once, so it is never in a URL and a reload never shows it.
 */
export async function showWebhookSecretAfterRedirect(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
  monitorId: string,
  pending: PendingSecret,
) {
  await ctx.pendingSecrets.keep(signedIn.id, monitorId, pending);
  return reply.redirect(`/keys/${keyId}/monitors/${monitorId}/secret`, 303);
}

/** The page a webhook's new secret is shown on, once; opened again, it leads to the monitor's page. */
export function webhookSecretPage(ctx: PortalContext) {
  return async (request: FastifyRequest<MonitorParams>, reply: FastifyReply) => {
    const found = await loadMonitor(ctx, request, reply);
    if ("sent" in found) return found.sent;
    const { signedIn, loaded, monitor } = found;
    const pending = await ctx.pendingSecrets.take(signedIn.id, monitor.id);
    if (!pending) return reply.redirect(`${monitorPath(loaded, monitor.id)}?done=webhook-secret-shown`, 303);
    const tarball = sdkTarballUrl(ctx);
    return renderPage(ctx, reply, "monitor-secret", {
      title:
        pending.made === "created" ? "Your webhook's signing secret" : "Your webhook's new signing secret",
      nav: "keys",
      key: loaded.key,
      monitor,
      made: pending.made,
      secret: pending.secret,
      previousExpires:
        pending.previous_expires_at === undefined ? undefined : timeOf(pending.previous_expires_at),
      install: tarball === undefined ? undefined : `npm install ${tarball}`,
      snippet: webhookVerificationSnippet(),
      pythonSnippet: pythonWebhookVerificationSnippet(),
    });
  };
}
