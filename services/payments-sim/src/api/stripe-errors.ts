/**
 * Errors in Stripe's shape, `{"error": {"type", "code", "message", "param"}}`, with Stripe's statuses,
 * so the SDK raises the same error classes it raises against Stripe (StripeInvalidRequestError,
 * StripeAuthenticationError, …).
 */
import type { FastifyReply } from "fastify";

export interface StripeErrorBody {
  readonly type: "invalid_request_error" | "idempotency_error" | "api_error";
  readonly message: string;
  readonly code?: string;
  readonly param?: string;
}

export function stripeErrorPayload(error: StripeErrorBody) {
  const docUrl = error.code
    ? `https://docs.stripe.com/error-codes/${error.code.replace(/_/g, "-")}`
    : undefined;
  return { error: { ...error, doc_url: docUrl } };
}

export function sendStripeError(reply: FastifyReply, status: number, error: StripeErrorBody) {
  return reply.code(status).type("application/json").send(stripeErrorPayload(error));
}

export const missingResource = (kind: string, id: string, param: string): StripeErrorBody => ({
  type: "invalid_request_error",
  code: "resource_missing",
  message: `No such ${kind}: '${id}'`,
  param,
});
