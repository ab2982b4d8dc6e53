/**
 * A key's monitors page (docs/api.md#monitors): the key's monitors with their status and the items
 * each holds, a form to create one that first shows the backfill's estimate and asks to confirm, and
 * deleting. Billing first confirms the key is the signed-in account's (another account's key is a
 * 404), and its balance and spend cap say whether the monitors show `paused_for_credits`.
 */
import {
  DEFAULT_MONITOR_LIMITS,
  fundingOf,
  KEY_ID_PATTERN,
  type KeyDetails,
  type MonitorReply,
} from "@rda/contracts";
import type { NatsRequestFailure } from "@rda/service-kit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import type { MonitorOwner } from "../monitors-client.ts";
import { billingFailed } from "./keys.ts";

type KeyParams = { Params: { id: string } };
type MonitorParams = { Params: { id: string; monitorId: string } };

const MONITOR_ID = /^mon_[A-Za-z0-9]{1,40}$/;

/** What a person sees for each status the service reports. */
export const MONITOR_STATUS_LABELS: Record<string, string> = {
  backfilling: "Active: collecting history",
  live: "Active",
  paused: "Paused",
  paused_for_credits: "Paused for credits",
  failing: "Failing",
};

/** The form's fields, kept as typed so a page shown again keeps them. */
export interface MonitorForm {
  kind: string;
  watch: string;
  name: string;
  phrase: string;
  interval_seconds: string;
  backfill_from: string;
}

const EMPTY_FORM: MonitorForm = {
  kind: "post",
  watch: "subreddit",
  name: "",
  phrase: "",
  interval_seconds: "300",
  backfill_from: "30d",
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
  };
}

function monitorsFailed(ctx: PortalContext, reply: FastifyReply, failure: NatsRequestFailure) {
  return sendPageError(ctx, reply, "monitors_unavailable", {
    retryAfterSeconds: 5,
    internal: `${failure.kind}: ${failure.message}`,
  });
}

/** The key, when it is the signed-in account's, and who asks for its monitors; else the answer sent. */
async function ownerOf(ctx: PortalContext, reply: FastifyReply, signedIn: SignedIn, keyId: string) {
  if (!KEY_ID_PATTERN.test(keyId)) return { sent: await sendPageError(ctx, reply, "not_found") };
  const shown = await ctx.billing.showKey(signedIn.accountId, keyId);
  if (!shown.ok) return { sent: await billingFailed(ctx, reply, shown.error) };
  if (!shown.value) return { sent: await sendPageError(ctx, reply, "not_found") };
  const key: KeyDetails = shown.value;
  const owner: MonitorOwner = {
    keyId,
    accountId: signedIn.accountId,
    funding: fundingOf(key.credits_balance, key.month_spend),
  };
  return { key, owner };
}

type Loaded = Exclude<Awaited<ReturnType<typeof ownerOf>>, { sent: unknown }>;

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
      funding: loaded.owner.funding,
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

/** Step one of creating: the estimate of the backfill, and a button to confirm. Nothing is created. */
export function previewMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
    if ("sent" in loaded) return loaded.sent;
    const form = readForm(request.body);
    const answer = await ctx.monitors.estimate(loaded.owner, bodyOf(form));
    if (!answer.ok) return monitorsFailed(ctx, reply, answer.error);
    if (!answer.value.ok) {
      const refused = refusal(answer.value, form);
      return renderMonitors(ctx, reply, loaded, refused.extra, refused.status);
    }
    const { backfill_estimate } = answer.value.value as {
      backfill_estimate: { upstream_pages: number | null; max_credits: number | null };
    };
    return renderPage(ctx, reply, "monitor-confirm", {
      title: "Confirm the new monitor",
      nav: "keys",
      key: loaded.key,
      form,
      estimate: backfill_estimate,
    });
  };
}

export function createMonitor(ctx: PortalContext) {
  return async (request: FastifyRequest<KeyParams>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const loaded = await ownerOf(ctx, reply, signedIn, request.params.id);
    if ("sent" in loaded) return loaded.sent;
    const form = readForm(request.body);
    const answer = await ctx.monitors.create(loaded.owner, bodyOf(form));
    if (!answer.ok) return monitorsFailed(ctx, reply, answer.error);
    if (!answer.value.ok) {
      const refused = refusal(answer.value, form);
      return renderMonitors(ctx, reply, loaded, refused.extra, refused.status);
    }
    request.log.info({ key_id: loaded.key.id, account_id: signedIn.accountId }, "monitor created");
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
