/**
 * The one handler behind the six data endpoints, driven by their OPERATIONS entry (docs/architecture.md,
 * "one request's way"): validate → key → idempotency claim → admission (the key's bucket, the
 * balance, the shared reserve and the debit, decided by billing in one step) → adapter → envelope.
 * The shared cache is asked first: a cached answer is admitted without the upstream reserve
 * (cached-answer.ts).
 * Nothing is charged and nothing shared is spent on a refused request (docs/api.md#charging); after
 * the debit, the charge (charge.ts) is settled once the answer is written, or refunded exactly once.
 */
import { err, type OperationContract, parseHttpParams } from "@rda/contracts";
import { admitThroughBilling } from "../admission.ts";
import { type Failure, succeed } from "../failure.ts";
import { readIdempotencyKey } from "../idempotency.ts";
import { authenticate } from "./authenticate.ts";
import { ageSeconds, requestedMaxAge } from "./cache-control.ts";
import { cachedAnswer } from "./cached-answer.ts";
import { openCharge } from "./charge.ts";
import { envelope, sendEnvelope } from "./envelope.ts";
import { beginIdempotent } from "./idempotent-request.ts";
import { setRateLimitHeaders } from "./rate-limit-headers.ts";
import type { GatewayRoute, RawParams } from "./route.ts";
import { sendError } from "./send-error.ts";

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
      const maxAgeS = requestedMaxAge(request.headers["cache-control"]);
      // An answer the shared cache holds costs the upstream nothing: asked for first, it takes no
      // place in the upstream reserve and is never refused for a spent window (cached-answer.ts).
      const cached = await cachedAnswer(ctx, {
        adapter,
        requestId: request.id,
        params: parsed.value,
        maxAgeS,
      });
      const admission = await admitThroughBilling(ctx, key.value, {
        requestId: request.id,
        operation: operationId,
        credits,
        reserve: cached === undefined,
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
      const result =
        cached !== undefined
          ? succeed(cached)
          : await ctx.adapters.call(adapter, request.id, parsed.value, { maxAgeS }).catch(internalError);
      if (!result.ok) return sendError(reply, await charge.fail(result.error), ctx.errors);
      const meta = { credits_used: credits, credits_remaining: balance };
      // docs/api.md#freshness: every answer says when the upstream produced it, and how long ago.
      const { fetchedAtMs } = result.value;
      const freshness = fetchedAtMs === undefined ? {} : { cached_at: Math.floor(fetchedAtMs / 1000) };
      if (fetchedAtMs !== undefined) {
        const age = ageSeconds(fetchedAtMs);
        reply.header("age", String(age));
        ctx.metrics.answerAge.observe({ operation: operationId }, age);
      }
      // docs/api.md#response-envelope: cursor and has_more only on list-style endpoints.
      const service =
        operation.meta === "list"
          ? { cursor: result.value.cursor, has_more: result.value.has_more, ...meta, ...freshness }
          : { ...meta, ...freshness };
      const body = envelope(result.value.data, service);
      await charge.answering({ body, creditsUsed: credits, creditsRemaining: balance });
      return sendEnvelope(reply, body, meta);
    },
  };
}

const invalid = (detail: string): Failure => ({ code: "invalid_parameter", detail });

const internalError = (error: unknown) => err<Failure>({ code: "internal_error", internal: String(error) });
