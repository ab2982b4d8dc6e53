/**
 * /v1/monitors (docs/api.md#monitors): managing monitors (and their webhooks: the delivery log,
 * redelivery, a test event, rotating the secret) is free and admitted like /v1/account (the
 * key's own bucket, 0 credits); pulling items costs 1 credit for a page holding
 * at least one item, admitted and settled like a data request, and refunded when the page is empty
 * or the request fails. The monitors service answers over NATS, within the asking key's monitors.
 */
import {
  MONITOR_ID_PATTERN,
  MONITOR_PULL_OPERATION,
  MONITORS_RPC,
  type MonitorAction,
  type MonitorReply,
  type MonitorRequest,
  type MonitorsRpc,
  monitorItemsQuerySchema,
  type PublicRoute,
  parseQuery,
  publicRoute,
  type RpcRequest,
  type Subjects,
} from "@rda/contracts";
import { type RpcCaller, rpcCaller, tellSpendingPaused } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling, type WithBucket } from "../core/admission.ts";
import type { GatewayContext } from "../core/context.ts";
import type { Failure } from "../core/failure.ts";
import type { KeyInfo } from "../core/key-directory.ts";
import { envelope, sendEnvelope, setRateLimitHeaders } from "../http/answers.ts";
import { authenticate } from "../http/authenticate.ts";
import { openCharge } from "../http/charge.ts";
import { answerManaged, refusedBy, serviceUnavailable, takeIn } from "../http/managed-command.ts";
import { acceptJsonObjectBodies, jsonObjectBody } from "../http/read-body.ts";
import { sendError } from "../http/send-error.ts";
import { fastifyPath, portalConfig, type RawParams } from "./index.ts";

/** A monitor's definition is a few hundred bytes; anything far larger is refused unread. */
export const MONITOR_BODY_LIMIT_BYTES = 8_192;
const MONITORS_TIMEOUT_MS = 10_000;
/** Managing a monitor creating one may read one upstream page for its backfill estimate. */
const CREATE_TIMEOUT_MS = 40_000;

type Params = { id?: string; delivery_id?: string };
type MonitorsContext = GatewayContext & {
  readonly subjects: Subjects;
  readonly monitors: RpcCaller<MonitorsRpc>;
};

const NOT_FOUND = refusedBy("resource_not_found", "monitor not found", { param: "id" });

/** Each served route and the monitors service's action behind it; the rest is its declaration. */
interface Managed {
  readonly route: PublicRoute;
  readonly action: MonitorAction;
  readonly status?: number;
  /** A create that only validates and estimates: the service creates nothing. */
  readonly estimateOnly?: true;
}

const managed = (operationId: string, action: MonitorAction, status?: number): Managed => ({
  route: publicRoute(operationId),
  action,
  ...(status === undefined ? {} : { status }),
});

const MANAGED: readonly Managed[] = [
  { ...managed("estimateMonitor", "create"), estimateOnly: true },
  managed("createMonitor", "create", 201),
  managed("listMonitors", "list"),
  managed("getMonitor", "get"),
  managed("updateMonitor", "update"),
  managed("deleteMonitor", "delete"),
  managed("listMonitorDeliveries", "deliveries"),
  managed("redeliverMonitorBatch", "redeliver", 202),
  managed("testMonitorWebhook", "test"),
  managed("rotateMonitorWebhookSecret", "rotate_secret"),
];
const PULL = publicRoute("pullMonitorItems");

export async function registerMonitorRoutes(
  app: FastifyInstance,
  gateway: GatewayContext,
  subjects: Subjects,
): Promise<void> {
  const monitors = rpcCaller(gateway.nats, MONITORS_RPC, subjects.monitors, MONITORS_TIMEOUT_MS);
  const ctx: MonitorsContext = { ...gateway, subjects, monitors };
  acceptJsonObjectBodies(app, ctx, MONITOR_BODY_LIMIT_BYTES);
  for (const entry of MANAGED) {
    app.route({
      method: entry.route.method,
      url: fastifyPath(entry.route.path),
      config: portalConfig(entry.route.operationId),
      handler: (request, reply) => manage(ctx, entry, request, reply),
    });
  }
  app.route({
    method: PULL.method,
    url: fastifyPath(PULL.path),
    config: portalConfig(PULL.operationId),
    handler: (request, reply) => pullItems(ctx, request, reply),
  });
}

async function manage(ctx: MonitorsContext, route: Managed, request: FastifyRequest, reply: FastifyReply) {
  const body =
    route.action === "create" || route.action === "update" ? jsonObjectBody(request.body) : undefined;
  if (body !== undefined && !body.ok) return sendError(reply, body.error, ctx.errors);
  const taken = await takeIn(ctx, { route: route.route, operation: "manageMonitors" }, request, reply);
  if ("sent" in taken) return taken.sent;
  const { key } = taken.managed;
  const { id, delivery_id } = request.params as Params;
  const timeoutMs = route.action === "create" ? CREATE_TIMEOUT_MS : MONITORS_TIMEOUT_MS;
  const asked = { ...owner(key), id, body: body?.value, delivery_id, estimate_only: route.estimateOnly };
  const answer = await askMonitors(ctx, route.action, asked, timeoutMs);
  return answerManaged(
    ctx,
    request,
    reply,
    taken.managed,
    answer.ok ? { value: answer.value, status: route.status ?? 200 } : { failure: answer.failure },
  );
}

async function pullItems(ctx: MonitorsContext, request: FastifyRequest, reply: FastifyReply) {
  // The route's declared query (PULL's params but its path's), read typed.
  const query = parseQuery(monitorItemsQuerySchema, request.query as RawParams);
  if (!query.ok) return sendError(reply, { code: "invalid_parameter", detail: query.error }, ctx.errors);
  const authenticated = await authenticate(request, ctx);
  if (!authenticated.ok) return sendError(reply, authenticated.error, ctx.errors);
  const key = authenticated.value;
  const credits = PULL.credits;
  const admission = await admitThroughBilling(ctx, key, {
    requestId: request.id,
    operation: MONITOR_PULL_OPERATION,
    credits,
  });
  if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
  if (admission.refusal) tellPullsPaused(ctx, key.id, admission.refusal, request);
  if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
  const { balance } = admission.value;
  // The route's path always holds an id; a malformed one is answered as an unknown monitor.
  const { id = "" } = request.params as Params;
  const asked = { ...owner(key), id, cursor: query.value.cursor, limit: query.value.limit };
  const answer = await askMonitors(ctx, "items", asked, MONITORS_TIMEOUT_MS);
  const page = answer.ok ? (answer.value as { items: unknown[]; cursor: string | null }) : undefined;
  if (page === undefined || page.items.length === 0) {
    // Nothing delivered (an empty page, a refusal, an outage): the credit goes back before answering.
    const refund = { key_id: key.id, request_id: request.id, reason: "empty_page" };
    const after = await ctx.refunds.refundNow(refund);
    const remaining = after ?? balance + credits;
    if (!answer.ok) return sendError(reply, answer.failure, ctx.errors);
    const service = { credits_used: 0, credits_remaining: remaining };
    return sendEnvelope(reply, envelope(Buffer.from(JSON.stringify(page)), service), service);
  }
  const charge = openCharge(ctx, request, reply, key, { credits, balance, claim: undefined });
  const service = { credits_used: credits, credits_remaining: balance };
  const body = envelope(Buffer.from(JSON.stringify(page)), service);
  await charge.answering({ body, creditsUsed: credits, creditsRemaining: balance });
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

/** Who asks: the key, and the account whose limit on monitors it counts towards. */
function owner(key: KeyInfo): Pick<MonitorRequest, "key_id" | "account_id"> {
  return { key_id: key.id, ...(key.account_id !== null ? { account_id: key.account_id } : {}) };
}

type Answer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: Failure };

async function askMonitors<N extends MonitorAction>(
  ctx: MonitorsContext,
  action: N,
  request: RpcRequest<MonitorsRpc, N>,
  timeoutMs: number,
): Promise<Answer> {
  // A malformed id names no monitor: answered as an unknown one, after authentication.
  const id = (request as { id?: string }).id;
  if (id !== undefined && !MONITOR_ID_PATTERN.test(id)) return { ok: false, failure: NOT_FOUND };
  const payload = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const answer = await ctx.monitors.call(action, payload as RpcRequest<MonitorsRpc, N>, timeoutMs);
  if (!answer.ok) return { ok: false, failure: serviceUnavailable(`monitors: ${answer.error.message}`) };
  return answer.value.ok ? answer.value : { ok: false, failure: refusalOf(answer.value) };
}

function refusalOf(refusal: Extract<MonitorReply, { ok: false }>): Failure {
  return refusedBy(refusal.code, refusal.error, { param: refusal.param });
}
