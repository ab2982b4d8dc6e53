/**
 * Cross-cutting request handling: the `x-request-id` on every response, refusing bodies on GET, the
 * access log line and metrics, and the catalog answer for unknown paths (404), other methods (405)
 * and anything fastify itself rejects. Every non-200 body is exactly `{error}` (spec §7).
 */
import type { Socket } from "node:net";
import { ERRORS } from "@rda/contracts";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GatewayContext } from "../context.ts";
import { correlationId } from "../request-id.ts";
import { MCP_PREFIX } from "../routes/mcp-proxy.ts";
import type { Failure } from "./failure.ts";
import { sendError } from "./send-error.ts";

export function installHooks(app: FastifyInstance, ctx: GatewayContext): void {
  app.addHook("onRequest", async (request, reply) => {
    const echoed = correlationId(request.headers["x-request-id"], request.id);
    reply.header("x-request-id", echoed);
    if (echoed !== request.id) request.log = request.log.child({ caller_request_id: echoed });
    if (request.method === "GET" && hasBody(request) && !isMcp(request)) {
      return sendError(reply, { code: "invalid_parameter", detail: "GET requests take no body" }, ctx.errors);
    }
  });
  app.addHook("onResponse", async (request, reply) => record(ctx, request, reply));
  app.setNotFoundHandler(async (request, reply) =>
    sendError(reply, { code: request.method === "GET" ? "not_found" : "method_not_allowed" }, ctx.errors),
  );
  app.setErrorHandler(async (error: FastifyError, request, reply) =>
    sendError(reply, failureOf(error, request), ctx.errors),
  );
}

function failureOf(error: FastifyError, request: FastifyRequest): Failure {
  if (request.method !== "GET" && !isMcp(request)) return { code: "method_not_allowed" };
  if (error.statusCode === 413) return { code: "payload_too_large" };
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: "invalid_parameter", detail: "the request could not be read", internal: error.message };
  }
  return { code: "internal_error", internal: error.stack ?? error.message };
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined;
}

function isMcp(request: FastifyRequest): boolean {
  return (
    request.url === MCP_PREFIX ||
    request.url.startsWith(`${MCP_PREFIX}/`) ||
    request.url.startsWith(`${MCP_PREFIX}?`)
  );
}

function record(ctx: GatewayContext, request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? "unmatched";
  const status = String(reply.statusCode);
  ctx.metrics.requests.inc({ route, method: request.method, status });
  ctx.metrics.requestDuration.observe({ route, status }, reply.elapsedTime / 1000);
  request.log.info(
    {
      method: request.method,
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      error_code: reply.errorCode,
    },
    "request completed",
  );
}

/**
 * Requests node's HTTP parser rejects never reach a route; they still get a `{error}` body (spec §7)
 * instead of fastify's default shape.
 */
export function answerClientError(_error: Error, socket: Socket): void {
  if (!socket.writable) return;
  const body = JSON.stringify({
    error: `${ERRORS.invalid_parameter.message}: the HTTP request is malformed`,
  });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
