/**
 * A key's exports (docs/api.md#exports) in the portal: the list with a form that asks for a quote,
 * one export's page with its quote before it is started, a progress bar that htmx refreshes every
 * second while the job moves (no reload, no inline script: the CSP stays as it is), pause, resume
 * and cancel, and the download once done. Each through the gateway, as the key's own API calls
 * (key-pages.ts): the gateway checks the key is the signed-in account's, the exports service that
 * the job is the key's, and admission reads the balance a start needs.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { EXPORT_FORMATS, EXPORT_ID_PATTERN, type ExportJob } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import type { CallOptions } from "../gateway-client.ts";
import { isUnavailable } from "../gateway-client.ts";
import { field } from "../http/forms.ts";
import { renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { words } from "../http/words.ts";
import { askGateway, type Loaded, ownerOf, renderRefusalPage } from "./key-pages.ts";

type Params = { id: string; exportId?: string };
const ACTIONS = ["start", "pause", "resume", "cancel"] as const;
export type ExportAction = (typeof ACTIONS)[number];
/** States in which the job still moves by itself: the page keeps refreshing its progress. */
const MOVING = new Set(["queued", "running", "paused"]);
const DAY = 86_400;

/** What the create form holds, echoed back when it needs a change. */
interface ExportForm {
  kind: string;
  subreddit: string;
  author: string;
  from: string;
  until: string;
  format: string;
  gzip: boolean;
  max_credits: string;
}

const EMPTY_FORM: ExportForm = {
  kind: "posts",
  subreddit: "",
  author: "",
  from: "",
  until: "",
  format: "jsonl",
  gzip: false,
  max_credits: "",
};

/** A call about the key's exports (key-pages.ts' askGateway). */
function askExports(
  ctx: PortalContext,
  reply: FastifyReply,
  loaded: Loaded,
  method: "GET" | "POST",
  path: string,
  options: CallOptions & { json?: boolean } = {},
) {
  return askGateway(ctx, reply, loaded, method, path, { ...options, unavailable: "exports_unavailable" });
}

export function exportsPage(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    return renderList(ctx, reply, signedIn, request.params.id, EMPTY_FORM);
  };
}

async function renderList(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
  form: ExportForm,
  fieldError?: string,
  status = 200,
) {
  const owned = await ownerOf(ctx, reply, signedIn, keyId);
  if ("sent" in owned) return owned.sent;
  // A revoked key's exports stopped for good; the gateway answers nothing for it, and the page says so.
  const listed = owned.key.revoked
    ? { data: { jobs: [] } }
    : await askExports(ctx, reply, owned, "GET", "/v1/exports");
  if ("sent" in listed) return listed.sent;
  if ("refused" in listed)
    return renderRefusalPage(ctx, reply, listed.refused, "Your exports cannot be shown");
  return renderPage(
    ctx,
    reply,
    "exports",
    {
      title: `Exports of ${owned.key.label || owned.key.id}`,
      nav: "keys",
      key: owned.key,
      jobs: (listed.data as { jobs: ExportJob[] }).jobs.map(describe),
      form,
      formats: EXPORT_FORMATS,
      fieldError,
      // One token per form shown: sent twice, it quotes one export (Idempotency-Key).
      idempotencyKey: randomUUID(),
    },
    status,
  );
}

/** The form's days (UTC) as the API's exclusive bounds: from the first day's start to the last day's end. */
function readForm(body: unknown): { form: ExportForm; request?: Record<string, unknown>; problem?: string } {
  const text = (name: string) => (field(body, name) ?? "").trim();
  const form: ExportForm = {
    kind: text("kind"),
    subreddit: text("subreddit"),
    author: text("author"),
    from: text("from"),
    until: text("until"),
    format: text("format"),
    gzip: field(body, "gzip") === "on",
    max_credits: text("max_credits"),
  };
  const day = (value: string) =>
    /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) / 1000 : Number.NaN;
  const from = day(form.from);
  const until = day(form.until);
  if (Number.isNaN(from) || Number.isNaN(until))
    return { form, problem: "Give the first and the last day of the window as dates." };
  if (until < from) return { form, problem: "The last day must not come before the first." };
  if (form.max_credits !== "" && !/^\d{1,6}$/.test(form.max_credits))
    return { form, problem: "Give the credit ceiling as a whole number, or leave it empty for the quote's." };
  const request: Record<string, unknown> = {
    kind: form.kind,
    after: from - 1,
    before: until + DAY,
    format: form.format,
    ...(form.gzip ? { gzip: true } : {}),
    ...(form.subreddit === "" ? {} : { subreddit: form.subreddit.replace(/^\/?r\//i, "") }),
    ...(form.author === "" ? {} : { author: form.author.replace(/^\/?u\//i, "") }),
    ...(form.max_credits === "" ? {} : { max_credits: Number(form.max_credits) }),
  };
  return { form, request };
}

/** `POST /keys/:id/exports`: a quote (free), then the export's page, where it is started or not. */
export function createExport(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const keyId = request.params.id;
    const read = readForm(request.body);
    if (read.request === undefined)
      return renderList(ctx, reply, signedIn, keyId, read.form, read.problem, 400);
    const owned = await ownerOf(ctx, reply, signedIn, keyId);
    if ("sent" in owned) return owned.sent;
    const token = field(request.body, "idempotency_key");
    const answer = await askExports(ctx, reply, owned, "POST", "/v1/exports", {
      body: read.request,
      ...(token === undefined || token === "" ? {} : { idempotencyKey: token }),
    });
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer) {
      const { status, error } = answer.refused;
      if (answer.refused.retryAfterSeconds !== undefined)
        reply.header("retry-after", String(answer.refused.retryAfterSeconds));
      return renderList(ctx, reply, signedIn, keyId, read.form, sentence(error), status);
    }
    const job = answer.data as ExportJob;
    request.log.info({ key_id: keyId, export_id: job.id }, "export quoted");
    return reply.redirect(`/keys/${keyId}/exports/${job.id}`, 303);
  };
}

/** One export's page, or (for htmx) only its progress panel. */
export function exportPage(ctx: PortalContext, panelOnly = false) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const { id: keyId, exportId = "" } = request.params;
    const signedIn = panelOnly ? request.signedIn : requireSignIn(request, reply);
    if (!signedIn) {
      if (!panelOnly) return reply;
      // htmx follows HX-Redirect with a full page load, instead of swapping a sign-in page into a panel.
      reply.header("hx-redirect", `/login?next=${encodeURIComponent(`/keys/${keyId}/exports/${exportId}`)}`);
      return sendPageError(ctx, reply, "sign_in_required", { json: true });
    }
    return renderJob(ctx, reply, signedIn, keyId, exportId, { panelOnly });
  };
}

async function renderJob(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  keyId: string,
  exportId: string,
  page: {
    panelOnly?: boolean;
    error?: { title: string; message: string };
    status?: number;
  },
) {
  const json = page.panelOnly;
  if (!EXPORT_ID_PATTERN.test(exportId)) return sendPageError(ctx, reply, "not_found", { json });
  const owned = await ownerOf(ctx, reply, signedIn, keyId, json);
  if ("sent" in owned) return owned.sent;
  const shown = await askExports(ctx, reply, owned, "GET", `/v1/exports/${exportId}`, { json });
  if ("sent" in shown) return shown.sent;
  if ("refused" in shown) {
    if (json) return reply.code(shown.refused.status).send({ error: shown.refused.error });
    return renderRefusalPage(ctx, reply, shown.refused, "The export cannot be shown");
  }
  const locals = {
    key: owned.key,
    job: describe(shown.data as ExportJob),
    csrf: reply.generateCsrf(),
    words,
  };
  if (page.panelOnly) {
    const html = await reply.viewAsync("partials/export-progress.eta", locals);
    return reply.type("text/html; charset=utf-8").send(html);
  }
  return renderPage(
    ctx,
    reply,
    "export",
    { title: `Export ${exportId}`, nav: "keys", ...locals, error: page.error },
    page.status ?? 200,
  );
}

/** `POST /keys/:id/exports/:exportId/{start,pause,resume,cancel}`: back to the export's page. */
export function exportAction(ctx: PortalContext, action: ExportAction) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const { id: keyId, exportId = "" } = request.params;
    if (!EXPORT_ID_PATTERN.test(exportId)) return sendPageError(ctx, reply, "not_found");
    const owned = await ownerOf(ctx, reply, signedIn, keyId);
    if ("sent" in owned) return owned.sent;
    // A job starts once: its id names the start, so a second click is the first one's answer.
    const start = action === "start" ? { idempotencyKey: `portal-start-${exportId}` } : {};
    const answer = await askExports(ctx, reply, owned, "POST", `/v1/exports/${exportId}/${action}`, start);
    if ("sent" in answer) return answer.sent;
    if ("refused" in answer) {
      const { status, error: message } = answer.refused;
      const error = { title: REFUSAL_TITLES[status] ?? "That could not be done", message: sentence(message) };
      return renderJob(ctx, reply, signedIn, keyId, exportId, { error, status });
    }
    request.log.info({ key_id: keyId, export_id: exportId, action }, "export changed");
    return reply.redirect(`/keys/${keyId}/exports/${exportId}`, 303);
  };
}

const REFUSAL_TITLES: Record<number, string> = {
  402: "Not enough credits for this export",
  409: "That cannot be done now",
  429: "Too many exports at once",
};

/** `GET /keys/:id/exports/:exportId/file`: the finished file, streamed on from the gateway. */
export function exportFile(ctx: PortalContext) {
  return async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const { id: keyId, exportId = "" } = request.params;
    if (!EXPORT_ID_PATTERN.test(exportId)) return sendPageError(ctx, reply, "not_found");
    const owned = await ownerOf(ctx, reply, signedIn, keyId);
    if ("sent" in owned) return owned.sent;
    const file = await ctx.gateway.file(owned.caller, `/v1/exports/${exportId}/file`);
    if (isUnavailable(file))
      return sendPageError(ctx, reply, "exports_unavailable", {
        retryAfterSeconds: 5,
        internal: file.unavailable,
      });
    if (!("body" in file)) {
      if (file.status >= 500)
        return sendPageError(ctx, reply, "exports_unavailable", { internal: `${file.code}: ${file.error}` });
      if (file.status === 401 || file.status === 404) return sendPageError(ctx, reply, "not_found");
      return renderRefusalPage(ctx, reply, file, "The file cannot be downloaded");
    }
    for (const name of ["content-type", "content-length", "content-disposition", "x-export-sha256"]) {
      const value = file.headers.get(name);
      if (value !== null) reply.header(name, value);
    }
    return reply
      .code(200)
      .header("cache-control", "private, no-store")
      .send(Readable.fromWeb(file.body as ReadableStream));
  };
}

/** What the pages show of a job: the contract's view and a few words for people. */
function describe(job: ExportJob) {
  const source = job.query.subreddit !== undefined ? `r/${job.query.subreddit}` : `u/${job.query.author}`;
  const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
  return {
    ...job,
    source,
    window: `${day(job.query.after + 1)} to ${day(job.query.before - 1)}`,
    moving: MOVING.has(job.state),
    format: `${job.query.format}${job.query.gzip ? ".gz" : ""}`,
  };
}

/** The service's messages start lower-case; a page shows them as sentences. */
function sentence(message: string): string {
  const text = `${message.charAt(0).toUpperCase()}${message.slice(1)}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
