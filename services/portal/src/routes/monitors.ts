/**
 * A key's monitors page (docs/api.md#monitors): the key's monitors with their status and the items
 * each holds, a form to create one (optionally with a webhook URL) that first shows the backfill's
 * estimate and asks to confirm, and deleting. Billing first confirms the key is the signed-in
 * account's (another account's key is a 404), and its balance and spend cap say whether the
 * monitors show `paused_for_credits` (monitor-owner.ts). A monitor's own page, with its webhook's
 * delivery log and secret, is monitor-webhooks.ts.
 */
import { DEFAULT_MONITOR_LIMITS, fundingOf, type MonitorReply } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import type { PortalMonitors } from "../monitors-client.ts";
import {
  type Loaded,
  MONITOR_ID,
  MONITOR_STATUS_LABELS,
  type MonitorParams,
  monitorsFailed,
  ownerOf,
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
  const listed = await ctx.monitors.list(loaded.owner);
  if (!listed.ok) return monitorsFailed(ctx, reply, listed.error);
  if (!listed.value.ok) return sendPageError(ctx, reply, "not_found");
  const { monitors, limit, limit_used } = listed.value.value as {
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

/** A refusal of the monitors service, shown above the form with what was typed. */
function refusal(reply: Extract<MonitorReply, { ok: false }>, form: MonitorForm) {
  const title = reply.status === 409 ? "No room for another monitor" : "Check the monitor's fields";
  return {
    extra: { error: { title, message: reply.error }, form },
    status: reply.status === 409 ? 409 : 400,
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
  ask: (owner: Loaded["owner"], body: Record<string, unknown>) => ReturnType<PortalMonitors["create"]>,
): Promise<
  { signedIn: SignedIn; loaded: Loaded; form: MonitorForm; value: unknown } | { sent: FastifyReply }
> {
  const signedIn = requireSignIn(request, reply);
  if (!signedIn) return { sent: reply };
  const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
  if ("sent" in loaded) return loaded;
  const form = readForm(request.body);
  const answer = await ask(loaded.owner, bodyOf(form));
  if (!answer.ok) return { sent: await monitorsFailed(ctx, reply, answer.error) };
  if (!answer.value.ok) {
    const refused = refusal(answer.value, form);
    return { sent: await renderMonitors(ctx, reply, loaded, refused.extra, refused.status) };
  }
  return { signedIn, loaded, form, value: answer.value.value };
}

/** Step one of creating: the estimate of the backfill, and a button to confirm. Nothing is created. */
export function previewMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const sent = await sendForm(ctx, request, reply, (owner, body) => ctx.monitors.estimate(owner, body));
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
    });
  };
}

export function createMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const sent = await sendForm(ctx, request, reply, (owner, body) => ctx.monitors.create(owner, body));
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
    const answer = await ctx.monitors.delete(loaded.owner, monitorId);
    if (!answer.ok) return monitorsFailed(ctx, reply, answer.error);
    if (!answer.value.ok) return sendPageError(ctx, reply, "not_found");
    return reply.redirect(`/keys/${loaded.key.id}/monitors?done=monitor-deleted`, 303);
  };
}
