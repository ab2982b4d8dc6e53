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
  type MonitorAsker,
  type MonitorRefusal,
  type MonitorsRpc,
  type MonitorsRpcRequest,
  monitorItemsQuerySchema,
  type PublicRoute,
  parseQuery,
  publicRoute,
  type Result,
  type Subjects,
} from "@rda/contracts";
import { type NatsRequestFailure, type RpcCaller, rpcCaller, tellSpendingPaused } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling, type WithBucket } from "../core/admission.ts";
import type { Failure, GatewayContext } from "../core/context.ts";
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
/** Creating or estimating a monitor may read one upstream page for its backfill estimate. */
const ESTIMATE_TIMEOUT_MS = 40_000;

type Params = { id?: string; delivery_id?: string };
type MonitorsContext = GatewayContext & {
  readonly subjects: Subjects;
  readonly monitors: RpcCaller<MonitorsRpc>;
  /** Every command's wait for the monitors service, when a test sets one (each route's own otherwise). */
  readonly commandTimeoutMs: number | undefined;
};

const NOT_FOUND = refusedBy("resource_not_found", "monitor not found", { param: "id" });

/** What a route's request carries for the monitors service: who asks, the path's ids, the body. */
interface Asked {
  readonly asker: MonitorAsker;
  /** The path's monitor id, checked against its pattern (a route without one never reads it). */
  readonly id: string;
  readonly deliveryId: string;
  readonly body: unknown;
  /** The request's token under `Idempotency-Key` (managed-command.ts), for the commands that take one. */
  readonly requestToken: string | undefined;
}

type Answer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: Failure };

/** Each served route, and how it asks the monitors service: its call, built from the request. */
interface Managed {
  readonly route: PublicRoute;
  readonly ask: (ctx: MonitorsContext, asked: Asked) => Promise<Answer>;
  readonly status: number;
}

/** A route served by one call of MONITORS_RPC, its request made of what the route's request carries. */
function managed<N extends MonitorAction>(
  operationId: string,
  action: N,
  request: (asked: Asked) => MonitorsRpcRequest<N>,
  { status = 200, timeoutMs = MONITORS_TIMEOUT_MS } = {},
): Managed {
  const route = publicRoute(operationId);
  return {
    route,
    status,
    ask: async (ctx, asked) => {
      // A malformed id names no monitor: answered as an unknown one, after authentication.
      if (route.pathParams.includes("id") && !MONITOR_ID_PATTERN.test(asked.id))
        return { ok: false, failure: NOT_FOUND };
      return answerOf<unknown>(
        await ctx.monitors.call(action, request(asked), ctx.commandTimeoutMs ?? timeoutMs),
      );
    },
  };
}

const own = ({ asker, id }: Asked) => ({ ...asker, id });
/** The `request_token` field of a call, when the request came with one. */
const once = ({ requestToken }: Asked) => (requestToken === undefined ? {} : { request_token: requestToken });

const MANAGED: readonly Managed[] = [
  managed("estimateMonitor", "estimate", ({ asker, body }) => ({ ...asker, body }), {
    timeoutMs: ESTIMATE_TIMEOUT_MS,
  }),
  managed("createMonitor", "create", (asked) => ({ ...asked.asker, body: asked.body, ...once(asked) }), {
    status: 201,
    timeoutMs: ESTIMATE_TIMEOUT_MS,
  }),
  managed("listMonitors", "list", ({ asker }) => asker),
  managed("getMonitor", "get", own),
  managed("updateMonitor", "update", (asked) => ({ ...own(asked), body: asked.body })),
  managed("deleteMonitor", "delete", own),
  managed("listMonitorDeliveries", "deliveries", own),
  managed(
    "redeliverMonitorBatch",
    "redeliver",
    (asked) => ({ ...own(asked), delivery_id: asked.deliveryId, ...once(asked) }),
    {
      status: 202,
    },
  ),
  managed("testMonitorWebhook", "test", own),
  managed("rotateMonitorWebhookSecret", "rotate_secret", (asked) => ({ ...own(asked), ...once(asked) })),
];
const PULL = publicRoute("pullMonitorItems");

export async function registerMonitorRoutes(
  app: FastifyInstance,
  gateway: GatewayContext,
  subjects: Subjects,
  { timeoutMs }: { readonly timeoutMs?: number | undefined } = {},
): Promise<void> {
  const monitors = rpcCaller(gateway.nats, MONITORS_RPC, subjects.monitors, timeoutMs ?? MONITORS_TIMEOUT_MS);
  const ctx: MonitorsContext = { ...gateway, subjects, monitors, commandTimeoutMs: timeoutMs };
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

async function manage(ctx: MonitorsContext, entry: Managed, request: FastifyRequest, reply: FastifyReply) {
  // A route that reads a body refuses one that is not a JSON object before the key is looked at.
  const body = entry.route.body === null ? undefined : jsonObjectBody(request.body);
  if (body !== undefined && !body.ok) return sendError(reply, body.error, ctx.errors);
  const taken = await takeIn(ctx, { route: entry.route, operation: "manageMonitors" }, request, reply);
  if ("sent" in taken) return taken.sent;
  const { id = "", delivery_id = "" } = request.params as Params;
  const asked = {
    asker: askerOf(taken.managed.key),
    id,
    deliveryId: delivery_id,
    body: body?.value,
    requestToken: taken.managed.requestToken,
  };
  const answer = await entry.ask(ctx, asked);
  return answerManaged(
    ctx,
    request,
    reply,
    taken.managed,
    answer.ok ? { value: answer.value, status: entry.status } : { failure: answer.failure },
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
  const asked = { ...askerOf(key), id, cursor: query.value.cursor, limit: query.value.limit };
  const answer = MONITOR_ID_PATTERN.test(id)
    ? answerOf(await ctx.monitors.call("items", asked))
    : { ok: false as const, failure: NOT_FOUND };
  const page = answer.ok ? answer.value : undefined;
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
function askerOf(key: KeyInfo): MonitorAsker {
  return { key_id: key.id, ...(key.account_id !== null ? { account_id: key.account_id } : {}) };
}

/** The monitors service's reply: its value, its refusal (with its code), or no answer in time. */
function answerOf<Value>(
  answer: Result<{ ok: true; value: Value } | MonitorRefusal, NatsRequestFailure>,
): { ok: true; value: Value } | { ok: false; failure: Failure } {
  if (!answer.ok) return { ok: false, failure: serviceUnavailable(`monitors: ${answer.error.message}`) };
  const reply = answer.value;
  if (reply.ok) return reply;
  return { ok: false, failure: refusedBy(reply.code, reply.error, { param: reply.param }) };
}
