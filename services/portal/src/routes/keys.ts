/**
 * The keys pages: the list with the account's limits, creating a key (its secret shown once, with
 * the first-request snippets), one key's page with its balance and usage, rotating and revoking.
 * Billing answers every question scoped to the signed-in account: another account's key is "not
 * found" there, and a 404 here.
 */
import {
  type AccountKeyLimits,
  KEY_ID_PATTERN,
  KEY_LIMITS,
  type KeyDetails,
  labelProblem,
  monthResetsAt,
} from "@rda/contracts";
import type { NatsRequestFailure } from "@rda/service-kit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { firstRequestSnippets } from "../snippets.ts";
import type { PendingSecret } from "../store/pending-secrets.ts";
import { DEFAULT_USAGE_DAYS, USAGE_PERIODS, usageReport, usageView } from "../usage-report.ts";
import { DEFAULT_SDK_DIR, findPythonWheel, findSdkTarball } from "./sdk.ts";

const LABEL_MAX = 100;

export function billingFailed(
  ctx: PortalContext,
  reply: FastifyReply,
  failure: NatsRequestFailure,
  json = false,
) {
  return sendPageError(ctx, reply, "billing_unavailable", {
    retryAfterSeconds: 5,
    internal: `${failure.kind}: ${failure.message}`,
    json,
  });
}

function limitMessage(limits: AccountKeyLimits | undefined): string | undefined {
  if (!limits) return undefined;
  if (limits.created >= limits.max_created)
    return `This account has created ${limits.max_created} keys, the most an account may create. Keep using the keys you have, or write to us to raise the limit.`;
  if (limits.active >= limits.max_active)
    return `You have ${limits.max_active} active keys, the most an account may hold. Revoke a key you no longer use to create another.`;
  return undefined;
}

export function keysPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    return renderKeys(ctx, reply, signedIn, {
      welcome: field(request.query, "welcome") === "1",
      notice: noticeFor(request.query),
    });
  };
}

async function renderKeys(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  const listed = await ctx.billing.listKeys(signedIn.accountId);
  if (!listed.ok) return billingFailed(ctx, reply, listed.error);
  const { keys, limits } = listed.value;
  return renderPage(
    ctx,
    reply,
    "keys",
    {
      title: "Your API keys",
      nav: "keys",
      keys,
      limits,
      limitMessage: limitMessage(limits),
      label: "",
      labelMax: LABEL_MAX,
      welcome: false,
      ...extra,
    },
    status,
  );
}

/**
 * A label is for the person only, but it is shown on pages and in the operator CLI: plain text,
 * bounded, without characters that would make it read as something else (contracts' labelProblem).
 * The label, or the sentence saying what to change.
 */
function readLabel(raw: string | undefined): { label: string } | { problem: string } {
  const label = (raw ?? "").trim().replace(/\s+/g, " ");
  if (label.length < 1 || label.length > LABEL_MAX) {
    return {
      problem: `Give the key a label of 1 to ${LABEL_MAX} characters, such as "laptop" or "production".`,
    };
  }
  const problem = labelProblem(label);
  if (problem === undefined) return { label };
  return { problem: `${problem[0]!.toUpperCase()}${problem.slice(1)}.` };
}

export function createKey(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const typed = field(request.body, "label");
    const read = readLabel(typed);
    if ("problem" in read) {
      return renderKeys(ctx, reply, signedIn, { label: typed ?? "", fieldError: read.problem }, 400);
    }
    const { label } = read;
    const created = await ctx.billing.createKey(signedIn.accountId, label);
    if (!created.ok) return billingFailed(ctx, reply, created.error);
    if (created.value.outcome === "limit_reached") return renderKeys(ctx, reply, signedIn, { label }, 409);
    const { id, key } = created.value;
    request.log.info({ key_id: id, account_id: signedIn.accountId }, "key created");
    return showSecretAfterRedirect(ctx, reply, signedIn, id, { secret: key, made: "created" });
  };
}

/**
 * POST-redirect-GET: the form's answer is a redirect to the page that shows the secret once
 * (store/pending-secrets.ts), so refreshing that page never sends the form again.
 */
async function showSecretAfterRedirect(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
  pending: PendingSecret,
) {
  await ctx.pendingSecrets.keep(signedIn.id, keyId, pending);
  return reply.redirect(`/keys/${keyId}/secret`, 303);
}

export function sdkTarballUrl(ctx: PortalContext): string | undefined {
  const file = findSdkTarball(ctx.settings.sdkDir ?? DEFAULT_SDK_DIR);
  return file === undefined ? undefined : `${ctx.settings.publicUrl}/sdk/${file}`;
}

export function pythonWheelUrl(ctx: PortalContext): string | undefined {
  const file = findPythonWheel(ctx.settings.sdkDir ?? DEFAULT_SDK_DIR);
  return file === undefined ? undefined : `${ctx.settings.publicUrl}/sdk/${file}`;
}

/** The page a new secret is shown on, once; opened again, it leads to the key's page with a notice. */
export function secretPage(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const id = request.params.id;
    if (!KEY_ID_PATTERN.test(id)) return sendPageError(ctx, reply, "not_found");
    const pending = await ctx.pendingSecrets.take(signedIn.id, id);
    if (!pending) return reply.redirect(`/keys/${id}?done=secret-shown`, 303);
    const shown = await ctx.billing.showKey(signedIn.accountId, id);
    // The secret is what matters here; without the details the page just leaves the balance out.
    const key = shown.ok && shown.value ? shown.value : { id, label: "" };
    const page =
      pending.made === "created"
        ? {
            heading: "Your new API key",
            extra:
              "credits_balance" in key
                ? `It comes with ${key.credits_balance.toLocaleString("en-US")} free credits.`
                : "",
          }
        : {
            heading: "Your key's new secret",
            extra: "The old secret has stopped working; the balance and the history are kept.",
          };
    return renderPage(ctx, reply, "key-secret", {
      title: page.heading,
      nav: "keys",
      ...page,
      key,
      secret: pending.secret,
      snippets: firstRequestSnippets(
        ctx.settings.apiUrl,
        pending.secret,
        sdkTarballUrl(ctx),
        pythonWheelUrl(ctx),
      ),
    });
  };
}

function usageDays(query: unknown): number {
  const days = Number(field(query, "days"));
  return (USAGE_PERIODS as readonly number[]).includes(days) ? days : DEFAULT_USAGE_DAYS;
}

/** A key of the signed-in account with its usage, or an answer already sent (404 or 503). */
async function loadKey(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  id: string,
  days: number,
) {
  if (!KEY_ID_PATTERN.test(id)) return { sent: await sendPageError(ctx, reply, "not_found") };
  const [shown, usage] = await Promise.all([
    ctx.billing.showKey(signedIn.accountId, id),
    ctx.billing.usage(signedIn.accountId, id, days),
  ]);
  if (!shown.ok) return { sent: await billingFailed(ctx, reply, shown.error) };
  if (!usage.ok) return { sent: await billingFailed(ctx, reply, usage.error) };
  if (!shown.value || !usage.value.found) return { sent: await sendPageError(ctx, reply, "not_found") };
  return { key: shown.value, usage: usageView(usageReport(shown.value, usage.value.days)) };
}

function keyLocals(ctx: PortalContext, loaded: { key: KeyDetails; usage: ReturnType<typeof usageView> }) {
  const capResetsAt = monthResetsAt(loaded.key.month_spend.month);
  return { ...loaded, periods: USAGE_PERIODS, portalUrl: ctx.settings.publicUrl, capResetsAt };
}

async function renderKey(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  id: string,
  page: { days?: number; extra?: Partial<PageLocals>; status?: number } = {},
) {
  const loaded = await loadKey(ctx, reply, signedIn, id, page.days ?? DEFAULT_USAGE_DAYS);
  if ("sent" in loaded) return loaded.sent;
  const locals = {
    title: loaded.key.label || loaded.key.id,
    nav: "keys" as const,
    ...keyLocals(ctx, loaded),
  };
  return renderPage(ctx, reply, "key", { ...locals, ...page.extra }, page.status ?? 200);
}

export function keyPage(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    return renderKey(ctx, reply, signedIn, request.params.id, {
      days: usageDays(request.query),
      extra: { notice: noticeFor(request.query) },
    });
  };
}

export function usagePanel(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = request.signedIn;
    if (!signedIn) {
      // htmx follows HX-Redirect with a full page load, instead of swapping a sign-in page into a panel.
      reply.header("hx-redirect", `/login?next=${encodeURIComponent(`/keys/${request.params.id}`)}`);
      return sendPageError(ctx, reply, "sign_in_required", { json: true });
    }
    const loaded = await loadKey(ctx, reply, signedIn, request.params.id, usageDays(request.query));
    if ("sent" in loaded) return loaded.sent;
    const html = await reply.viewAsync("partials/usage.eta", keyLocals(ctx, loaded));
    return reply.type("text/html; charset=utf-8").send(html);
  };
}

export function rotateKey(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const id = request.params.id;
    if (!KEY_ID_PATTERN.test(id)) return sendPageError(ctx, reply, "not_found");
    const rotated = await ctx.billing.rotateKey(signedIn.accountId, id);
    if (!rotated.ok) return billingFailed(ctx, reply, rotated.error);
    if (rotated.value.outcome === "not_found") return sendPageError(ctx, reply, "not_found");
    if (rotated.value.outcome === "revoked") {
      const error = { title: "A revoked key cannot be rotated", message: "Create a new key instead." };
      return renderKey(ctx, reply, signedIn, id, { extra: { error }, status: 409 });
    }
    request.log.info({ key_id: id, account_id: signedIn.accountId }, "key rotated");
    return showSecretAfterRedirect(ctx, reply, signedIn, id, { secret: rotated.value.key, made: "rotated" });
  };
}

export function revokeKey(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const id = request.params.id;
    if (!KEY_ID_PATTERN.test(id)) return sendPageError(ctx, reply, "not_found");
    const revoked = await ctx.billing.revokeKey(signedIn.accountId, id);
    if (!revoked.ok) return billingFailed(ctx, reply, revoked.error);
    if (revoked.value === "not_found") return sendPageError(ctx, reply, "not_found");
    request.log.info({ key_id: id, account_id: signedIn.accountId }, "key revoked");
    return reply.redirect(`/keys/${id}?done=revoked`, 303);
  };
}

/** The cap form's field: empty removes the cap; otherwise a whole number within the contract's bounds. */
function readMonthlyCap(raw: string | undefined): { cap: number | null } | undefined {
  const text = (raw ?? "").trim().replace(/[,_\s]/g, "");
  if (text === "") return { cap: null };
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const cap = Number(text);
  const { min, max } = KEY_LIMITS.monthlyCap;
  return cap >= min && cap <= max ? { cap } : undefined;
}

export function setSpendCap(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const id = request.params.id;
    if (!KEY_ID_PATTERN.test(id)) return sendPageError(ctx, reply, "not_found");
    const typed = field(request.body, "monthly_cap");
    const read = readMonthlyCap(typed);
    if (read === undefined) {
      const { min, max } = KEY_LIMITS.monthlyCap;
      const capError = `Give the cap as a whole number of credits from ${min} to ${max.toLocaleString("en-US")}, or leave it empty for no cap.`;
      return renderKey(ctx, reply, signedIn, id, { extra: { capError, capValue: typed ?? "" }, status: 400 });
    }
    const set = await ctx.billing.setSpendCap(signedIn.accountId, id, read.cap);
    if (!set.ok) return billingFailed(ctx, reply, set.error);
    if (set.value.outcome === "not_found") return sendPageError(ctx, reply, "not_found");
    request.log.info({ key_id: id, account_id: signedIn.accountId, monthly_cap: read.cap }, "spend cap set");
    return reply.redirect(`/keys/${id}?done=${read.cap === null ? "cap-removed" : "cap-set"}`, 303);
  };
}
