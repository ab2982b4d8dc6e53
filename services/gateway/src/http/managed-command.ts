/**
 * The one way a request that manages something (a monitor, its webhook, an export) is taken in and
 * answered (docs/api.md#monitors, #exports): the query against the route's declared parameters,
 * the key, `Idempotency-Key` on a POST that creates work or a resource, then admission like
 * `GET /v1/account` (the key's own bucket, no credit). The service that owns
 * the thing answers a value or a refusal with its catalog code; both are answered here, a refusal
 * through `sendError` like every other failure (same headers, same access-log fields).
 *
 * A command sent under `Idempotency-Key` carries the claim's request token to the owning service
 * (`requestToken`), which does the command once per token: the gateway's stored response covers a
 * retry after an answer that arrived, the token one after an answer that did not.
 */
import {
  type ErrorCode,
  type PublicRoute,
  parseQuery,
  querySchemaOf,
  type ServiceRefusalCode,
} from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Admitted, admitThroughBilling } from "../core/admission.ts";
import type { Failure, GatewayContext } from "../core/context.ts";
import { type Claim, readIdempotencyKey } from "../core/idempotency.ts";
import type { KeyInfo } from "../core/key-directory.ts";
import { envelope, sendEnvelope, setRateLimitHeaders } from "./answers.ts";
import { authenticate } from "./authenticate.ts";
import { beginIdempotent } from "./idempotent-request.ts";
import { sendError } from "./send-error.ts";

export interface Managed {
  readonly key: KeyInfo;
  readonly admitted: Admitted;
  readonly claim: Claim | undefined;
  /** For the owning service's `request_token`: present when the request came under `Idempotency-Key`. */
  readonly requestToken: string | undefined;
}

/** The request taken in, or the answer already sent (a refusal, or a replayed response). */
export type TakenIn = { readonly managed: Managed } | { readonly sent: FastifyReply };

/**
 * Takes a request of a declared route in: its query against the route's declared parameters (its
 * path's ids are the owning service's to read: a malformed one is an unknown thing, 404), and
 * `Idempotency-Key` when the route takes it. `operation`: what admission counts the request under.
 */
export async function takeIn(
  ctx: GatewayContext,
  { route, operation }: { readonly route: PublicRoute; readonly operation: string },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<TakenIn> {
  const refuse = (failure: Failure) => ({ sent: sendError(reply, failure, ctx.errors) });
  const query = parseQuery(
    querySchemaOf(route),
    request.query as Record<string, string | string[] | undefined>,
  );
  if (!query.ok) return refuse({ code: "invalid_parameter", detail: query.error });
  const idempotencyKey = route.idempotent
    ? readIdempotencyKey(request.headers["idempotency-key"])
    : ({ ok: true, value: undefined } as const);
  if (!idempotencyKey.ok) return refuse({ code: "invalid_parameter", detail: idempotencyKey.error });
  const key = await authenticate(request, ctx);
  if (!key.ok) return refuse(key.error);
  const begun = await beginIdempotent(ctx, request, reply, key.value, idempotencyKey.value);
  if (!begun.ok) return refuse(begun.error);
  if ("answered" in begun.value) return { sent: begun.value.answered };
  const { claim } = begun.value;
  const admission = await admitThroughBilling(ctx, key.value, {
    requestId: request.id,
    operation,
    credits: 0,
  });
  if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
  if (!admission.ok) {
    await letGo(request, claim);
    return refuse(admission.error);
  }
  return { managed: { key: key.value, admitted: admission.value, claim, requestToken: claim?.requestToken } };
}

/**
 * Answers what the owning service said: its value in the envelope with `status` (recorded for an
 * `Idempotency-Key` before it is written: the thing exists whether or not the answer arrives), or
 * its refusal (the claim let go, so a retry is a new attempt).
 *
 * No answer in time (`serviceUnavailable`) lets the claim go too, though the command may have been
 * done, or be done still, after the 503: a retry under the same key goes to the service again with
 * the same request token, and the service answers what the first attempt made (or, while that one
 * is still at work, does its work once: whichever finishes first makes the thing, the other answers
 * it). Keeping the claim instead would answer the retry 409 for as long as the gateway cannot know
 * whether an answer is still coming (a stalled service may finish minutes later), and then still
 * have to let it go with the question open; the service is the one place that knows what was done.
 */
export async function answerManaged(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  managed: Managed,
  outcome: { readonly value: unknown; readonly status: number } | { readonly failure: Failure },
): Promise<FastifyReply> {
  if ("failure" in outcome) {
    await letGo(request, managed.claim);
    return sendError(reply, outcome.failure, ctx.errors);
  }
  const service = { credits_used: 0, credits_remaining: managed.admitted.balance };
  const body = envelope(Buffer.from(JSON.stringify(outcome.value)), service);
  await managed.claim
    ?.complete({ body, creditsUsed: 0, creditsRemaining: service.credits_remaining, status: outcome.status })
    .catch((error: unknown) => request.log.warn({ err: String(error) }, "idempotency store failed"));
  return sendEnvelope(reply, body, service).code(outcome.status);
}

/** A refusal of the service that owns the thing: its catalog code and its own sentence. */
export function refusedBy(
  code: ServiceRefusalCode,
  message: string,
  extra: { readonly param?: string | undefined; readonly retryAfterSeconds?: number | undefined } = {},
): Failure {
  return {
    code,
    message,
    ...(extra.param === undefined ? {} : { param: extra.param }),
    ...(extra.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds }),
  };
}

/**
 * The owning service did not answer in time. The command may still have been done; a retry under
 * the same `Idempotency-Key` is answered with what it did (its request token), never does it twice.
 */
export const serviceUnavailable = (internal: string): Failure => ({
  code: "service_unavailable" satisfies ErrorCode,
  retryAfterSeconds: 1,
  internal,
});

async function letGo(request: FastifyRequest, claim: Claim | undefined): Promise<void> {
  await claim?.release().catch((error: unknown) => {
    request.log.warn({ err: String(error) }, "idempotency store failed");
  });
}
