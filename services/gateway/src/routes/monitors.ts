/**
 * /v1/monitors (docs/api.md#monitors): managing monitors (and their webhooks: the delivery log,
 * redelivery, a test event, rotating the secret) is free and admitted like /v1/account (the
 * key's own bucket, 0 credits); pulling items costs 1 credit for a page holding
 * at least one item, admitted and settled like a data request, and refunded when the page is empty
 * or the request fails. The monitors service answers over NATS, within the asking key's monitors.
 */
import {
  fundingOf,
  MONITOR_DELIVERY_CREDITS,
  MONITOR_PAGE_ITEMS,
  MONITOR_PULL_OPERATION,
  type MonitorAction,
  type MonitorReply,
  type MonitorRequest,
  monitorReplySchema,
  type Subjects,
} from "@rda/contracts";
import { requestJson, tellSpendingPaused } from "@rda/service-kit";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling, type WithBucket } from "../admission.ts";
import type { GatewayContext } from "../context.ts";
import { authenticate } from "../http/authenticate.ts";
import { openCharge } from "../http/charge.ts";
import { envelope, sendEnvelope } from "../http/envelope.ts";
import { setRateLimitHeaders } from "../http/rate-limit-headers.ts";
import { sendError } from "../http/send-error.ts";
import type { KeyInfo } from "../key-directory.ts";

/** A monitor's definition is a few hundred bytes; anything far larger is refused unread. */
export const MONITOR_BODY_LIMIT_BYTES = 8_192;
const MONITORS_TIMEOUT_MS = 10_000;
/** Managing a monitor creating one may read one upstream page for its backfill estimate. */
const CREATE_TIMEOUT_MS = 40_000;

type Params = { id?: string; delivery_id?: string };
type MonitorsContext = GatewayContext & { readonly subjects: Subjects };

const MONITOR_ID = /^mon_[A-Za-z0-9]{1,40}$/;
const NOT_FOUND = { ok: false, status: 404, error: "monitor not found" } as const;

interface Managed {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly url: string;
  readonly action: MonitorAction;
  readonly status?: number;
}

const MANAGED: readonly Managed[] = [
  { method: "POST", url: "/v1/monitors", action: "create", status: 201 },
  { method: "GET", url: "/v1/monitors", action: "list" },
  { method: "GET", url: "/v1/monitors/:id", action: "get" },
  { method: "PATCH", url: "/v1/monitors/:id", action: "update" },
  { method: "DELETE", url: "/v1/monitors/:id", action: "delete" },
  { method: "GET", url: "/v1/monitors/:id/deliveries", action: "deliveries" },
  {
    method: "POST",
    url: "/v1/monitors/:id/deliveries/:delivery_id/redeliver",
    action: "redeliver",
    status: 202,
  },
  { method: "POST", url: "/v1/monitors/:id/test", action: "test" },
  { method: "POST", url: "/v1/monitors/:id/rotate-secret", action: "rotate_secret" },
];

export function registerMonitorRoutes(
  app: FastifyInstance,
  gateway: GatewayContext,
  subjects: Subjects,
): void {
  const ctx: MonitorsContext = { ...gateway, subjects };
  const errorHandler = (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
    error.statusCode === 413
      ? sendError(reply, { code: "payload_too_large" }, ctx.errors)
      : sendError(
          reply,
          {
            code: "invalid_parameter",
            detail: "the body must be a JSON object (Content-Type: application/json)",
          },
          ctx.errors,
        );
  for (const route of MANAGED) {
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: MONITOR_BODY_LIMIT_BYTES,
      errorHandler,
      handler: (request, reply) => manage(ctx, route, request, reply),
    });
  }
  app.get("/v1/monitors/:id/items", (request, reply) => pullItems(ctx, request, reply));
}

async function manage(ctx: MonitorsContext, route: Managed, request: FastifyRequest, reply: FastifyReply) {
  const key = await authenticate(request, ctx);
  if (!key.ok) return sendError(reply, key.error, ctx.errors);
  const admission = await admitThroughBilling(ctx, key.value, {
    requestId: request.id,
    operation: "manageMonitors",
    credits: 0,
  });
  if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
  if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
  const { id, delivery_id } = request.params as Params;
  const body = route.action === "create" || route.action === "update" ? (request.body ?? {}) : undefined;
  const timeoutMs = route.action === "create" ? CREATE_TIMEOUT_MS : MONITORS_TIMEOUT_MS;
  const { balance, monthSpend } = admission.value;
  const asked = { ...owner(key.value), id, body, delivery_id, funding: fundingOf(balance, monthSpend) };
  const answer = await askMonitors(ctx, route.action, asked, timeoutMs);
  if (answer === undefined) return sendError(reply, unavailable, ctx.errors);
  if (!answer.ok) return sendRefusal(reply, answer);
  const service = { credits_used: 0, credits_remaining: admission.value.balance };
  return sendEnvelope(reply, envelope(Buffer.from(JSON.stringify(answer.value)), service), service).code(
    route.status ?? 200,
  );
}

async function pullItems(ctx: MonitorsContext, request: FastifyRequest, reply: FastifyReply) {
  const key = await authenticate(request, ctx);
  if (!key.ok) return sendError(reply, key.error, ctx.errors);
  const { cursor, limit: rawLimit } = request.query as { cursor?: unknown; limit?: unknown };
  if (cursor !== undefined && typeof cursor !== "string")
    return sendError(reply, { code: "invalid_parameter", detail: "cursor: give it once" }, ctx.errors);
  const limit = pageLimit(rawLimit);
  if (limit === null)
    return sendError(
      reply,
      { code: "invalid_parameter", detail: `limit: must be a whole number from 1 to ${MONITOR_PAGE_ITEMS}` },
      ctx.errors,
    );
  const credits = MONITOR_DELIVERY_CREDITS;
  const admission = await admitThroughBilling(ctx, key.value, {
    requestId: request.id,
    operation: MONITOR_PULL_OPERATION,
    credits,
  });
  if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
  if (admission.refusal) tellPullsPaused(ctx, key.value.id, admission.refusal, request);
  if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
  const { balance } = admission.value;
  const { id } = request.params as Params;
  const asked = { ...owner(key.value), id, cursor, limit };
  const answer = await askMonitors(ctx, "items", asked, MONITORS_TIMEOUT_MS);
  const page = answer?.ok ? (answer.value as { items: unknown[]; cursor: string | null }) : undefined;
  if (page === undefined || page.items.length === 0) {
    // Nothing delivered (an empty page, a refusal, an outage): the credit goes back before answering.
    const refund = { key_id: key.value.id, request_id: request.id, reason: "empty_page" };
    const after = await ctx.refunds.refundNow(refund);
    const remaining = after ?? balance + credits;
    if (answer === undefined) return sendError(reply, unavailable, ctx.errors);
    if (!answer.ok) return sendRefusal(reply, answer);
    const service = { credits_used: 0, credits_remaining: remaining };
    return sendEnvelope(reply, envelope(Buffer.from(JSON.stringify(page)), service), service);
  }
  const charge = openCharge(ctx, request, reply, key.value, { credits, balance, claim: undefined });
  const service = { credits_used: credits, credits_remaining: balance };
  const body = envelope(Buffer.from(JSON.stringify(page)), service);
  charge.answering({ body, creditsUsed: credits, creditsRemaining: balance });
  return sendEnvelope(reply, body, service);
}

/**
 * A pull refused for credits or at the cap: the key's monitors show `paused_for_credits` (they keep
 * matching; the next pull after a top-up or a raised cap goes on), and the account is told. The
 * pause is named by the key's count of top-ups, or by the month and the cap, so however many pulls
 * are refused meanwhile the account hears of it once. Published beside the answer, never in its way.
 */
function tellPullsPaused(
  ctx: MonitorsContext,
  keyId: string,
  refusal: NonNullable<WithBucket["refusal"]>,
  request: FastifyRequest,
): void {
  const crossing =
    refusal.outcome === "insufficient"
      ? `${keyId}:monitor-pulls:credits:${refusal.low_balance_round ?? 0}`
      : `${keyId}:monitor-pulls:cap:${refusal.month_spend?.month}:${refusal.month_spend?.cap}`;
  void tellSpendingPaused(ctx.nats, ctx.subjects, keyId, refusal, { what: "Your monitors", crossing }).then(
    (told) => {
      if (!told.ok) request.log.warn({ err: told.error }, "monitor pull pause not told");
    },
  );
}

/** `limit` of a pull: undefined when absent (a full page), null when it is not 1 to 100. */
function pageLimit(raw: unknown): number | undefined | null {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !/^\d{1,3}$/.test(raw)) return null;
  const value = Number(raw);
  return value >= 1 && value <= MONITOR_PAGE_ITEMS ? value : null;
}

/** Who asks: the key, and the account whose limit on monitors it counts towards. */
function owner(key: KeyInfo): Pick<MonitorRequest, "key_id" | "account_id"> {
  return { key_id: key.id, ...(key.account_id !== null ? { account_id: key.account_id } : {}) };
}

const unavailable = { code: "service_unavailable", retryAfterSeconds: 1 } as const;

async function askMonitors(
  ctx: MonitorsContext,
  action: MonitorAction,
  request: Omit<MonitorRequest, "id"> & { id?: string | undefined },
  timeoutMs: number,
): Promise<MonitorReply | undefined> {
  if (request.id !== undefined && !MONITOR_ID.test(request.id)) return NOT_FOUND;
  const payload = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const answer = await requestJson(
    ctx.nats,
    ctx.subjects.monitors[action],
    payload,
    monitorReplySchema,
    timeoutMs,
  );
  return answer.ok ? answer.value : undefined;
}

function sendRefusal(reply: FastifyReply, refusal: Extract<MonitorReply, { ok: false }>): FastifyReply {
  return reply
    .code(refusal.status)
    .type("application/json; charset=utf-8")
    .send(JSON.stringify({ error: refusal.error }));
}
