/**
 * The one translation point from a failure to an HTTP answer (STYLE.md §4). The public body is exactly
 * `{error}`; the catalog code goes to the log.
 */
import { ERRORS } from "@rda/contracts";
import type { FastifyReply } from "fastify";
import type { Failure } from "./failure.ts";

/** Spec §7: 429 always carries an integer Retry-After; 503 does too, so callers know when to retry. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

export interface ErrorContext {
  /** TOPUP_URL, put in every 402 body (spec §7). */
  readonly topUpUrl: string;
}

export function sendError(reply: FastifyReply, failure: Failure, context: ErrorContext): FastifyReply {
  const entry = ERRORS[failure.code];
  reply.code(entry.status).type("application/json; charset=utf-8");
  if ("scope" in entry) reply.header("x-ratelimit-scope", entry.scope);
  if (entry.status === 429 || entry.status === 503) {
    reply.header("retry-after", String(wholeSeconds(failure.retryAfterSeconds)));
  }
  if (failure.code === "method_not_allowed") reply.header("allow", "GET");
  if (!reply.hasHeader("x-request-id")) reply.header("x-request-id", reply.request.id);
  if (failure.internal)
    reply.request.log.warn({ error_code: failure.code, reason: failure.internal }, "request failed");
  reply.errorCode = failure.code;
  return reply.send(JSON.stringify({ error: publicMessage(failure, entry.message, context) }));
}

function publicMessage(failure: Failure, catalogMessage: string, context: ErrorContext): string {
  const base = failure.detail ? `${catalogMessage}: ${failure.detail}` : catalogMessage;
  return failure.code === "insufficient_credits" ? `${base}; top up at ${context.topUpUrl}` : base;
}

function wholeSeconds(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds)) return DEFAULT_RETRY_AFTER_SECONDS;
  return Math.max(1, Math.ceil(seconds));
}

declare module "fastify" {
  interface FastifyReply {
    /** The catalog code of a failed request, for the access log and metrics. */
    errorCode?: string;
  }
}
