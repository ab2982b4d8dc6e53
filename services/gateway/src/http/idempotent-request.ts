/**
 * The gateway's side of `Idempotency-Key` (../idempotency.ts) for a data request or a POST that
 * creates work or a resource: claim the key, or answer at once — the stored response again (its
 * key's bucket still spends a token, and the RateLimit headers are fresh), 409 while the first
 * request is being served or when its response was not kept, 422 for a different request under the
 * same key. A request is its method, path and query, and a POST's body too.
 */
import { readApiKey, sha256Hex } from "@rda/service-kit";
import type { FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling } from "../core/admission.ts";
import { fail, type GatewayContext, type Step, succeed } from "../core/context.ts";
import type { Claim, StoredResponse } from "../core/idempotency.ts";
import type { KeyInfo } from "../core/key-directory.ts";
import { sendEnvelope, setRateLimitHeaders } from "./answers.ts";
import { sendError } from "./send-error.ts";

/** A claim to carry through the request, or the answer already sent. */
export type Begun = { readonly claim: Claim | undefined } | { readonly answered: FastifyReply };

export async function beginIdempotent(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  key: KeyInfo,
  idempotencyKey: string | undefined,
): Promise<Step<Begun>> {
  if (idempotencyKey === undefined) return succeed({ claim: undefined });
  let outcome: Awaited<ReturnType<typeof ctx.idempotency.claim>>;
  try {
    outcome = await ctx.idempotency.claim(
      key.id,
      idempotencyKey,
      fingerprintOf(request),
      ctx.settings.pendingDebitMs,
      presentedApiKey(request),
    );
  } catch (error) {
    return fail("service_unavailable", {
      retryAfterSeconds: 1,
      internal: `idempotency store: ${String(error)}`,
    });
  }
  switch (outcome.kind) {
    case "claimed":
      return succeed({ claim: outcome.claim });
    case "mismatch":
      return fail("idempotency_key_reused");
    case "in_progress":
      return fail("idempotency_in_progress");
    case "not_kept":
      return fail("idempotency_response_not_kept");
    case "replay":
      return succeed({ answered: await replay(ctx, request, reply, key, outcome.response) });
  }
}

/** The API key the caller presented, which seals its stored response; "" for a credential instead. */
function presentedApiKey(request: FastifyRequest): string {
  const presented = readApiKey(request.headers);
  return presented.ok ? presented.value : "";
}

/** What makes two requests the same request under one Idempotency-Key. */
function fingerprintOf(request: FastifyRequest): string {
  if (request.method === "GET") return `GET ${request.url}`;
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  return `${request.method} ${request.url} ${sha256Hex(body)}`;
}

async function replay(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  key: KeyInfo,
  stored: StoredResponse,
): Promise<FastifyReply> {
  const admission = await admitThroughBilling(ctx, key, {
    requestId: request.id,
    operation: "replay",
    credits: 0,
  });
  if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
  if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
  reply.header("idempotent-replayed", "true");
  return sendEnvelope(reply, stored.body, {
    credits_used: stored.creditsUsed,
    credits_remaining: stored.creditsRemaining,
  }).code(stored.status ?? 200);
}
