/**
 * The gateway's span of one HTTP request, used only while tracing is on. It continues the caller's
 * `traceparent` when one is sent, and everything the request does (billing, the adapter, a refund)
 * runs inside it, so their NATS messages carry it on and every log line names its trace.
 */
import {
  type Context,
  extractContext,
  otelContext,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  withRequestId,
} from "@rda/service-kit";
import type { FastifyReply, FastifyRequest } from "fastify";

const REQUEST_CONTEXT = Symbol("rda.trace-context");

type Traced = FastifyRequest & { [REQUEST_CONTEXT]?: Context };

export function startRequestSpan(request: FastifyRequest, done: () => void): void {
  const parent = extractContext(request.headers);
  const span = otelTrace
    .getTracer("rda")
    .startSpan(
      `${request.method} ${request.routeOptions.url ?? "unmatched"}`,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method } },
      parent,
    );
  const current = withRequestId(otelTrace.setSpan(parent, span), request.id);
  (request as Traced)[REQUEST_CONTEXT] = current;
  otelContext.with(current, done);
}

/** Runs `work` in the request's context: the response hooks fire outside of it. */
export function inRequestContext(request: FastifyRequest, work: () => void): void {
  const current = (request as Traced)[REQUEST_CONTEXT];
  if (current) otelContext.with(current, work);
  else work();
}

export function endRequestSpan(request: FastifyRequest, reply: FastifyReply): void {
  const current = (request as Traced)[REQUEST_CONTEXT];
  const span = current && otelTrace.getSpan(current);
  if (!span) return;
  span.setAttribute("http.response.status_code", reply.statusCode);
  if (request.routeOptions.url) span.setAttribute("http.route", request.routeOptions.url);
  if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
