/**
 * Cross-cutting request handling: the `x-request-id` on every response, refusing URLs over the limit,
 * the access log line and metrics, and the catalog answer for unknown paths (404), other methods
 * (405) and anything fastify itself rejects. These hold for every request, so they are installed on
 * the root; a rule for some routes only (no body on a GET: `refuseBodyOnGet`) is installed in the
 * scope of those routes (app.ts), never chosen here by looking at the URL. Every non-200 body is the
 * catalog's `{error, code, param?}` (docs/api.md#errors), and never echoes what was sent. Requests
 * that fail before fastify has a route for them (a URL that is not valid percent-encoding) and
 * requests Node's parser refuses (client-error.ts) get the same: a catalog answer, a request id, an
 * access line and metrics. The fields these hooks and the routes add to a request are declared here
 * too (`declareRequestFields`).
 */
import { tracingActive } from "@rda/service-kit";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Failure, GatewayContext } from "../core/context.ts";
import { correlationId, SECURITY_HEADERS } from "./answers.ts";
import { sendError } from "./send-error.ts";
import { URL_LIMIT_BYTES } from "./server-limits.ts";
import { endRequestSpan, inRequestContext, startRequestSpan } from "./tracing.ts";

export function installHooks(app: FastifyInstance, ctx: GatewayContext): void {
  app.addHook("onRequest", (request, reply, done) => {
    ctx.metrics.inFlight.inc();
    // 'close' comes once per response, whether it was sent in full or the client went away.
    reply.raw.once("close", () => ctx.metrics.inFlight.dec());
    if (tracingActive()) startRequestSpan(request, done);
    else done();
  });
  app.addHook("onRequest", async (request, reply) => {
    const echoed = correlationId(request.headers["x-request-id"], request.id);
    reply.header("x-request-id", echoed);
    if (echoed !== request.id) request.log = request.log.child({ caller_request_id: echoed });
    if (request.url.length > URL_LIMIT_BYTES) return sendError(reply, { code: "uri_too_long" }, ctx.errors);
  });
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    if (!tracingActive()) return recordAnswer(ctx, request, reply, route);
    inRequestContext(request, () => recordAnswer(ctx, request, reply, route));
    endRequestSpan(request, reply);
  });
  app.setNotFoundHandler(async (request, reply) => {
    if (request.method === "GET" && hasBody(request)) return sendError(reply, GET_WITH_BODY, ctx.errors);
    return sendError(
      reply,
      { code: request.method === "GET" ? "not_found" : "method_not_allowed" },
      ctx.errors,
    );
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) =>
    sendError(reply, failureOf(error, request), ctx.errors),
  );
}

/**
 * For the routes of a scope that read no body on GET (everything but the /mcp proxy, which forwards
 * what it is sent): a GET that carries one is refused before anything else looks at it.
 */
export function refuseBodyOnGet(scope: FastifyInstance, ctx: GatewayContext): void {
  scope.addHook("onRequest", async (request, reply) => {
    if (request.method === "GET" && hasBody(request)) return sendError(reply, GET_WITH_BODY, ctx.errors);
  });
}

const GET_WITH_BODY: Failure = { code: "invalid_parameter", detail: "GET requests take no body" };

/**
 * fastify's own refusals before routing (`frameworkErrors`): they skip every hook, so the security
 * headers, the access line and the metrics are added here.
 */
export function answerFrameworkError(
  ctx: GatewayContext,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  reply.raw.once("finish", () => recordAnswer(ctx, request, reply, "unmatched"));
  // With maxParamLength at the URL limit, only a URL over the limit has a parameter too long.
  const failure: Failure =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? { code: "uri_too_long" }
      : { code: "invalid_parameter", detail: "the URL is not valid percent-encoding" };
  return sendError(reply, failure, ctx.errors);
}

function failureOf(error: FastifyError, request: FastifyRequest): Failure {
  // A body sent with another method to a path served only for GET failed to parse before the
  // not-found handler could answer 405; it is still a method this API does not serve.
  if (request.is404 && request.method !== "GET") return { code: "method_not_allowed" };
  if (error.statusCode === 413) return { code: "payload_too_large" };
  if (error.statusCode === 414) return { code: "uri_too_long" };
  if (error.statusCode === 431) return { code: "headers_too_large" };
  if (error.statusCode === 408) return { code: "request_timeout", detail: error.message };
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: "invalid_parameter", detail: "the request could not be read", internal: error.message };
  }
  return { code: "internal_error", internal: error.stack ?? error.message };
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined;
}

function recordAnswer(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply, route: string) {
  const status = String(reply.statusCode);
  ctx.metrics.requests.inc({ route, method: request.method, status });
  ctx.metrics.requestDuration.observe({ route, status }, reply.elapsedTime / 1000);
  request.log.info(
    {
      method: request.method,
      route,
      key_id: request.keyId,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      error_code: reply.errorCode,
    },
    "request completed",
  );
}

/**
 * What the gateway adds to a request and a reply, declared once on the root instance with
 * `decorateRequest`/`decorateReply` so every request object keeps one shape (fastify adds the fields
 * to the prototype instead of to each object on first write), and typed below for every module.
 */
export function declareRequestFields(app: FastifyInstance): void {
  app.decorateRequest("keyId", undefined);
  app.decorateRequest("internalCredential", undefined);
  app.decorateReply("errorCode", undefined);
}

declare module "fastify" {
  interface FastifyRequest {
    /** The id of the key the request authenticated with, once it did (http/authenticate.ts). */
    keyId?: string;
    /** For an OAuth caller of /mcp: the internal credential forwarded in place of its token. */
    internalCredential?: string;
  }
  interface FastifyContextConfig {
    /** The developer portal's credential opens this route (routes/index.ts' PORTAL_OPERATIONS). */
    portal?: boolean;
  }
  interface FastifyReply {
    /** The catalog code of a failed request, for the access log and metrics (http/send-error.ts). */
    errorCode?: string;
  }
}
