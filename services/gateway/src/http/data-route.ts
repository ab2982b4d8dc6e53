/**
 * The one handler behind the six data endpoints, driven by their OPERATIONS entry (architecture.md,
 * "one request's way"): validate → key → limits (+ reserve) → debit → adapter → envelope. Nothing is
 * charged before step 4 (spec §7: 400/401/402/429 are never charged); after it, every failure is
 * refunded exactly once (a refund per request id; billing deduplicates by that id too).
 */
import { type OperationContract, parseHttpParams } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AdapterData } from "../adapter-client.ts";
import type { GatewayContext } from "../context.ts";
import type { KeyInfo } from "../key-directory.ts";
import { authenticateAndLimit } from "./authenticate.ts";
import { debitOneCredit } from "./debit.ts";
import { sendEnvelope } from "./envelope.ts";
import type { Failure } from "./failure.ts";
import type { GatewayRoute, RawParams } from "./route.ts";
import { sendError } from "./send-error.ts";

export function dataRoute(operation: OperationContract): GatewayRoute {
  const adapter = operation.adapter;
  if (adapter === null) throw new Error(`${operation.operationId} is not served by an adapter`);
  return {
    path: operation.path,
    operation,
    build: (ctx) => async (request, reply) => {
      const parsed = parseHttpParams(operation, request.query as RawParams, request.params as RawParams);
      if (!parsed.ok)
        return sendError(reply, { code: "invalid_parameter", detail: parsed.message }, ctx.errors);
      const key = await authenticateAndLimit(request, ctx, true);
      if (!key.ok) return sendError(reply, key.failure, ctx.errors);
      const balance = await debitOneCredit(ctx, key.value, request.id);
      if (!balance.ok) return sendError(reply, balance.failure, ctx.errors);
      const result = await ctx.adapters
        .call(adapter, request.id, parsed.params)
        .catch((error: unknown): { ok: false; failure: Failure } => ({
          ok: false,
          failure: { code: "internal_error", internal: String(error) },
        }));
      if (!result.ok) return refundAndFail(ctx, request, reply, key.value, result.failure);
      return answer(reply, operation, result.value, balance.value);
    },
  };
}

function answer(reply: FastifyReply, operation: OperationContract, result: AdapterData, balance: number) {
  const credits = { credits_used: 1, credits_remaining: balance } as const;
  // Spec §2 rule 1: cursor and has_more only on list-style endpoints.
  const service =
    operation.meta === "list" ? { cursor: result.cursor, has_more: result.has_more, ...credits } : credits;
  return sendEnvelope(reply, result.data, service);
}

function refundAndFail(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  key: KeyInfo,
  failure: Failure,
) {
  ctx.refunds.refund({ key_id: key.id, request_id: request.id, reason: failure.code });
  return sendError(reply, failure, ctx.errors);
}
