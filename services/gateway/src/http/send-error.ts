/**
 * The one translation point from a failure to an HTTP answer. The status, the scope
 * header and the public message come from the catalog (contracts/errors.ts); the public body is
 * `{error, code, param?}` (docs/api.md#errors); the catalog code goes to the log too.
 */
import { ERRORS, errorBody, publicErrorMessage } from "@rda/contracts";
import type { FastifyReply } from "fastify";
import type { ErrorContext, Failure } from "../core/context.ts";

/** 429 always carries an integer Retry-After (docs/api.md#errors); 503 does too, so callers know when to retry. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

export function sendError(reply: FastifyReply, failure: Failure, context: ErrorContext): FastifyReply {
  const entry = ERRORS[failure.code];
  reply.code(entry.status).type("application/json; charset=utf-8");
  if ("scope" in entry) reply.header("x-ratelimit-scope", entry.scope);
  if (entry.status === 429 || entry.status === 503) {
    reply.header("retry-after", String(wholeSeconds(failure.retryAfterSeconds)));
  }
  if (failure.code === "method_not_allowed") reply.header("allow", "GET");
  // The rest of a late body may still be coming: the connection cannot carry another request.
  if (failure.code === "request_timeout") reply.header("connection", "close");
  if (!reply.hasHeader("x-request-id")) reply.header("x-request-id", reply.request.id);
  if (failure.internal)
    reply.request.log.warn({ error_code: failure.code, reason: failure.internal }, "request failed");
  reply.errorCode = failure.code;
  const message =
    failure.message ??
    publicErrorMessage(failure.code, {
      detail: failure.detail,
      refunded: failure.refunded,
      topUpUrl: context.topUpUrl,
      spendCapUrl: context.spendCapUrl,
    });
  return reply.send(JSON.stringify(errorBody(failure.code, message, failure.param)));
}

function wholeSeconds(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds)) return DEFAULT_RETRY_AFTER_SECONDS;
  return Math.max(1, Math.ceil(seconds));
}
