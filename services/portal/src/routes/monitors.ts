/**
 * A key's monitors page (docs/api.md#monitors): the key's monitors with their status and the items
 * each holds, a form to create one (optionally with a webhook URL) that first shows the backfill's
 * estimate and asks to confirm, and deleting; each through the gateway, as the key's own API calls
 * (monitor-owner.ts). Billing shows the key (its label, and the balance notice above the list);
 * each monitor's status, `paused_for_credits` included, is the monitors service's. A monitor's own
 * page, with its webhook's delivery log and secret, is monitor-webhooks.ts.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_MONITOR_LIMITS, fundingOf } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
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
import { showWebhookSecretAfterRedirect } from "./monitor-webhooks.ts";

type KeyParams = { Params: { id: string } };

/** The form's fields, kept as typed so a page shown again keeps them. */
export interface MonitorForm {
  kind: string;
  watch: string;
  name: string;
  phrase: string;
  interval_seconds: string;
  backfill_from: string;
  webhook_url: string;
}

const EMPTY_FORM: MonitorForm = {
  kind: "post",
  watch: "subreddit",
  name: "",
  phrase: "",
  interval_seconds: "300",
  backfill_from: "30d",
  webhook_url: "",
};

function readForm(body: unknown): MonitorForm {
  const text = (name: keyof MonitorForm) => (field(body, name) ?? "").trim();
  return {
    kind: text("kind"),
    watch: text("watch"),
    name: text("name").replace(/^(r|u)\//i, ""),
    phrase: text("phrase"),
    interval_seconds: text("interval_seconds"),
    backfill_from: text("backfill_from"),
    webhook_url: text("webhook_url"),
  };
}

/** The API's body for the form; the monitors service validates it, naming every bad field. */
function bodyOf(form: MonitorForm): Record<string, unknown> {
  const number = (raw: string) => (/^\d{1,12}$/.test(raw) ? Number(raw) : raw);
  return {
    kind: form.kind,
    [form.watch === "author" ? "author" : "subreddit"]: form.name,
    ...(form.phrase !== "" ? { phrase: form.phrase } : {}),
    ...(form.interval_seconds !== "" ? { interval_seconds: number(form.interval_seconds) } : {}),
    ...(form.backfill_from !== "" ? { backfill_from: number(form.backfill_from) } : {}),
    ...(form.webhook_url !== "" ? { webhook_url: form.webhook_url } : {}),
  };
}

async function renderMonitors(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  // A revoked key's monitors stopped for good; the gateway answers nothing for it, and says why.
  if (loaded.key.revoked)
    return renderPage(
      ctx,
      reply,
      "monitors",
      { title: `Monitors of ${loaded.key.label || loaded.key.id}`, nav: "keys", key: loaded.key },
      status,
    );
  const listed = await askMonitors(ctx, reply, loaded, "GET", "/v1/monitors");
  if ("sent" in listed) return listed.sent;
  if ("refused" in listed)
    return renderRefusalPage(ctx, reply, listed.refused, "Your monitors cannot be shown");
  const { monitors, limit, limit_used } = listed.data as {
    monitors: Record<string, unknown>[];
    limit: number;
    limit_used?: number;
  };
  return renderPage(
    ctx,
    reply,
    "monitors",
    {
      title: `Monitors of ${loaded.key.label || loaded.key.id}`,
      nav: "keys",
      key: loaded.key,
      monitors,
      limit,
      limitUsed: limit_used ?? monitors.length,
      statusLabels: MONITOR_STATUS_LABELS,
      // The key's own notice above the list; each monitor's status is the monitors service's.
      funding: fundingOf(loaded.key.credits_balance, loaded.key.month_spend),
      form: EMPTY_FORM,
      minInterval: DEFAULT_MONITOR_LIMITS.minIntervalSeconds,
      ...extra,
    },
    status,
  );
}

/** A refusal of the gateway or the monitors service, shown above the form with what was typed. */
function refusal(refused: Refusal, form: MonitorForm) {
  const title =
    refused.code === "monitor_limit_reached"
      ? "No room for another monitor"
      : refused.status === 429 || refused.status === 409
        ? "Not now"
        : "Check the monitor's fields";
  return {
    extra: { error: { title, message: refused.error, param: refused.param }, form },
    status: refused.status,
  };
}

export function monitorsPage(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
    if ("sent" in loaded) return loaded.sent;
    return renderMonitors(ctx, reply, loaded, { notice: noticeFor(request.query) });
  };
}

/**
 * The form sent to the monitors service for the signed-in account's key: its answer when accepted;
 * otherwise the page already sent (the key not the account's, the service down, or its refusal
 * shown above the form with what was typed).
 */
async function sendForm(
  ctx: PortalContext,
  request: FastifyRequest<KeyParams>,
  reply: FastifyReply,
  path: "/v1/monitors" | "/v1/monitors/estimate",
): Promise<
  { signedIn: SignedIn; loaded: Loaded; form: MonitorForm; value: unknown } | { sent: FastifyReply }
> {
  const signedIn = requireSignIn(request, reply);
  if (!signedIn) return { sent: reply };
  const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
  if ("sent" in loaded) return loaded;
  const form = readForm(request.body);
  // The confirm page's token: a second submit of the same form is the first one's answer.
  const token = field(request.body, "idempotency_key");
  const idempotencyKey = path === "/v1/monitors" && token !== undefined && token !== "" ? token : undefined;
  const answer = await askMonitors(ctx, reply, loaded, "POST", path, { body: bodyOf(form), idempotencyKey });
  if ("sent" in answer) return answer;
  if ("refused" in answer) {
    const refused = refusal(answer.refused, form);
    return { sent: await renderMonitors(ctx, reply, loaded, refused.extra, refused.status) };
  }
  return { signedIn, loaded, form, value: answer.data };
}

/** Step one of creating: the estimate of the backfill, and a button to confirm. Nothing is created. */
export function previewMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const sent = await sendForm(ctx, request, reply, "/v1/monitors/estimate");
    if ("sent" in sent) return sent.sent;
    const { backfill_estimate } = sent.value as {
      backfill_estimate: { upstream_pages: number | null; max_credits: number | null };
    };
    return renderPage(ctx, reply, "monitor-confirm", {
      title: "Confirm the new monitor",
      nav: "keys",
      key: sent.loaded.key,
      form: sent.form,
      estimate: backfill_estimate,
      idempotencyKey: randomUUID(),
    });
  };
}

export function createMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const sent = await sendForm(ctx, request, reply, "/v1/monitors");
    if ("sent" in sent) return sent.sent;
    const { signedIn, loaded } = sent;
    request.log.info({ key_id: loaded.key.id, account_id: signedIn.accountId }, "monitor created");
    const { monitor, webhook_secret } = sent.value as {
      monitor: { id: string };
      webhook_secret?: string;
    };
    if (webhook_secret !== undefined)
      return showWebhookSecretAfterRedirect(ctx, reply, signedIn, loaded.key.id, monitor.id, {
        secret: webhook_secret,
        made: "created",
      });
    return reply.redirect(`/keys/${loaded.key.id}/monitors?done=monitor-created`, 303);
  };
}

export function deleteMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<MonitorParams>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
    if ("sent" in loaded) return loaded.sent;
    const { monitorId } = request.params;
    if (!MONITOR_ID.test(monitorId)) return sendPageError(ctx, reply, "not_found");
    const answer = await askMonitors(ctx, reply, loaded, "DELETE", `/v1/monitors/${monitorId}`);
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer)
      return renderRefusalPage(ctx, reply, answer.refused, "The monitor was not deleted");
    return reply.redirect(`/keys/${loaded.key.id}/monitors?done=monitor-deleted`, 303);
  };
}
