/**
 * The one handler behind the eight data endpoints, driven by their OPERATIONS entry (docs/architecture.md,
 * "one request's way"): validate → key → idempotency claim → admission (the key's bucket, the
 * balance, the spend cap and the debit, decided by billing in one step) → adapter → envelope.
 * Admission comes before any cache or adapter work, so a refused request costs neither; the upstream
 * budget is the adapters' pacer's.
 * Nothing is charged and nothing shared is spent on a refused request (docs/api.md#charging); after
 * the debit, the charge (charge.ts) is settled once the answer is written, or refunded exactly once.
 */
import {
  type AdapterOperation,
  budgetAccountOf,
  err,
  type OperationContract,
  parseHttpParams,
} from "@rda/contracts";
import type { FastifyReply } from "fastify";
import type { AdapterData } from "../core/adapter-client.ts";
import { admitThroughBilling } from "../core/admission.ts";
import { type Failure, type GatewayContext, type Step, succeed } from "../core/context.ts";
import { readIdempotencyKey } from "../core/idempotency.ts";
import { envelope, sendEnvelope, setRateLimitHeaders } from "../http/answers.ts";
import { authenticate } from "../http/authenticate.ts";
import { type Charge, openCharge } from "../http/charge.ts";
import { beginIdempotent } from "../http/idempotent-request.ts";
import { sendError } from "../http/send-error.ts";
import type { GatewayRoute, RawParams } from "./index.ts";

export function dataRoute(operation: OperationContract): GatewayRoute {
  const adapter = operation.adapter;
  if (adapter === null) throw new Error(`${operation.operationId} is not served by an adapter`);
  const { operationId, credits } = operation;
  return {
    path: operation.path,
    operation,
    build: (ctx) => async (request, reply) => {
      const parsed = parseHttpParams(operation, request.query as RawParams, request.params as RawParams);
      if (!parsed.ok) return sendError(reply, invalid(parsed.error), ctx.errors);
      const idempotencyKey = readIdempotencyKey(request.headers["idempotency-key"]);
      if (!idempotencyKey.ok) return sendError(reply, invalid(idempotencyKey.error), ctx.errors);
      const key = await authenticate(request, ctx);
      if (!key.ok) return sendError(reply, key.error, ctx.errors);
      const begun = await beginIdempotent(ctx, request, reply, key.value, idempotencyKey.value);
      if (!begun.ok) return sendError(reply, begun.error, ctx.errors);
      if ("answered" in begun.value) return begun.value.answered;
      const { claim } = begun.value;
      // Admission first (docs/architecture.md#one-requests-way): a key refused for its bucket, its
      // balance or its cap costs no cache read and no adapter round trip.
      const admission = await admitThroughBilling(ctx, key.value, {
        requestId: request.id,
        operation: operationId,
        credits,
      });
      if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
      if (!admission.ok) {
        // Nothing was charged: the answer is the refusal, whether or not the claim could be freed
        // (an unfreed claim expires by itself).
        await claim?.release().catch((error: unknown) => {
          request.log.warn({ err: String(error) }, "idempotency store failed");
        });
        return sendError(reply, admission.error, ctx.errors);
      }
      const { balance } = admission.value;
      const charge = openCharge(ctx, request, reply, key.value, { credits, balance, claim });
      const maxAgeS = requestedMaxAge(request.headers["cache-control"]);
      const result = await answer(ctx, {
        adapter,
        requestId: request.id,
        params: parsed.value,
        maxAgeS,
        account: budgetAccountOf(key.value.id, key.value.account_id),
      });
      if (!result.ok) return sendError(reply, await charge.fail(result.error), ctx.errors);
      return sendAnswer(reply, operation, charge, result.value, balance, ctx);
    },
  };
}

/** The 200: the data spliced into its envelope, with its freshness (docs/api.md#freshness). */
async function sendAnswer(
  reply: FastifyReply,
  operation: OperationContract,
  charge: Charge,
  answer: AdapterData,
  balance: number,
  ctx: GatewayContext,
) {
  const { operationId, credits } = operation;
  const meta = { credits_used: credits, credits_remaining: balance };
  // docs/api.md#freshness: every answer says when the upstream produced it, and how long ago.
  const { fetchedAtMs } = answer;
  const freshness = fetchedAtMs === undefined ? {} : { cached_at: Math.floor(fetchedAtMs / 1000) };
  if (fetchedAtMs !== undefined) {
    const age = ageSeconds(fetchedAtMs);
    reply.header("age", String(age));
    ctx.metrics.answerAge.observe({ operation: operationId }, age);
  }
  // docs/api.md#response-envelope: cursor and has_more only on list-style endpoints.
  const service =
    operation.meta === "list"
      ? { cursor: answer.cursor, has_more: answer.has_more, ...meta, ...freshness }
      : { ...meta, ...freshness };
  const body = envelope(answer.data, service);
  // Recorded for replay before it is written, so a retry sent once the answer arrived gets it.
  await charge.answering({ body, creditsUsed: credits, creditsRemaining: balance });
  return sendEnvelope(reply, body, meta);
}

interface AnswerRequest {
  readonly adapter: AdapterOperation;
  readonly requestId: string;
  readonly params: unknown;
  readonly maxAgeS: number | undefined;
  /** Whose fair share of the upstream budget a fetch is counted in (docs/upstream.md). */
  readonly account: string;
}

/**
 * The admitted request's answer: the one the cache of answers keeps (one read), else the adapter's.
 * Timed from admission by the path it took (docs/operations.md#metrics).
 */
async function answer(ctx: GatewayContext, request: AnswerRequest): Promise<Step<AdapterData>> {
  const admittedAt = performance.now();
  const { adapter, requestId, params, maxAgeS, account } = request;
  const cached = await ctx.cachedAnswers.read({ operation: adapter, params, maxAgeS });
  const result =
    cached !== undefined
      ? succeed(cached)
      : await ctx.adapters.call(adapter, requestId, params, { maxAgeS, account }).catch(internalError);
  const path = cached !== undefined ? "hit" : pathOf(result);
  if (path) ctx.metrics.answerPathDuration.observe({ path }, (performance.now() - admittedAt) / 1000);
  return result;
}

function pathOf(result: Step<AdapterData>): string | undefined {
  if (!result.ok) return result.error.code === "global_rate_limited" ? "refused_budget" : undefined;
  return { cache: "hit", joined: "coalesced", upstream: "fetched" }[result.value.source ?? "upstream"];
}

const invalid = (detail: string): Failure => ({ code: "invalid_parameter", detail });

const internalError = (error: unknown) => err<Failure>({ code: "internal_error", internal: String(error) });

/**
 * The caller's bound on an answer's age, from its `Cache-Control` request header (docs/api.md#freshness):
 * `no-cache` (or `no-store`) asks for a fresh fetch, `max-age=N` for an answer at most N seconds old.
 * Several directives: the strictest wins. Unknown directives and malformed values are ignored, as
 * HTTP caches ignore them; no header: the data's own bound alone (undefined).
 */
export function requestedMaxAge(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  let bound: number | undefined;
  const tighten = (seconds: number) => {
    bound = bound === undefined ? seconds : Math.min(bound, seconds);
  };
  for (const directive of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [rawName, rawValue] = directive.split("=", 2);
    const name = rawName?.trim().toLowerCase();
    if (name === "no-cache" || name === "no-store") tighten(0);
    if (name === "max-age" && rawValue !== undefined) {
      const value = rawValue.trim().replace(/^"(.*)"$/, "$1");
      if (/^\d{1,10}$/.test(value)) tighten(Number(value));
    }
  }
  return bound;
}

/** Whole seconds since the answer was produced upstream, never negative (clocks of replicas differ a little). */
export function ageSeconds(fetchedAtMs: number, nowMs = Date.now()): number {
  return Math.max(0, Math.floor((nowMs - fetchedAtMs) / 1000));
}
