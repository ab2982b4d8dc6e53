/**
 * The MCP service as a value: routes (/livez, /readyz, /mcp) and error answers, no listening, no
 * environment. `index.ts` starts it; tests may use it with inject().
 */
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import { requestIdSchema } from "@rda/contracts";
import type { GatewayClient } from "@rda/sdk";
import type { Logger } from "@rda/service-kit";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from "fastify";
import { mcpRoute } from "./mcp-route.ts";
import { registerOriginCheck } from "./origin.ts";
import { buildToolCatalog, createKeyRates } from "./tools/index.ts";

export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** About 10k to 13k tokens of JSON: well under the 25k-token cap common MCP clients put on a result. */
export const DEFAULT_RESULT_BUDGET_BYTES = 40_000;

export interface McpAppDeps {
  client: GatewayClient;
  logger: Logger;
  bodyLimitBytes?: number;
  /** A request whose body has not fully arrived this long after it began is answered 408. */
  bodyTimeoutMs?: number;
  /** Largest tool result, as JSON bytes; stated in the tool descriptions. */
  resultBudgetBytes?: number;
  /** Web origins whose pages may call /mcp (CORS); requests without Origin always may. */
  allowedOrigins?: readonly string[];
  /** True once shutdown began, so /readyz turns 503 and the balancer stops sending work. */
  isDraining?: () => boolean;
}

export function buildMcpApp(deps: McpAppDeps): FastifyInstance {
  const bodyLimitBytes = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const bodyTimeoutMs = deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Probes would drown the log; one line per /mcp request is written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // A caller's x-request-id (validated) follows the call to the gateway for correlation.
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && requestIdSchema.safeParse(given).success ? given : randomUUID();
    },
    // A body sent a byte at a time would otherwise hold a connection and a parser forever. Node checks
    // the deadline on a timer, so the timer runs often enough to keep the answer close to it.
    requestTimeout: bodyTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(1_000, bodyTimeoutMs), headersTimeout: bodyTimeoutMs },
    clientErrorHandler: (error, socket) => answerClientError(error, socket as Socket, bodyTimeoutMs),
  });
  app.addHook("onResponse", async (request, reply) => {
    if (!request.url.startsWith("/mcp")) return;
    request.log.info(
      { method: request.method, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "mcp request",
    );
  });
  app.get("/livez", async () => ({ status: "ok" }));
  // Readiness does not probe the gateway: the gateway is what sends us traffic, and its own
  // readiness already covers it; tying the two together would only make them flap together.
  app.get("/readyz", async (_request, reply) =>
    deps.isDraining?.() ? reply.code(503).send({ status: "draining" }) : { status: "ready" },
  );
  registerOriginCheck(app, deps.allowedOrigins ?? []);
  app.register(mcpRoute, {
    client: deps.client,
    catalog: buildToolCatalog(deps.resultBudgetBytes ?? DEFAULT_RESULT_BUDGET_BYTES),
    keyRates: createKeyRates(),
    bodyLimitBytes,
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: "no such endpoint: use POST /mcp" }),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    const message =
      status === 413
        ? `request body too large: the limit is ${bodyLimitBytes} bytes`
        : status >= 500
          ? "internal error"
          : error.message;
    return reply.code(status).send({ error: message });
  });
  return app;
}

/** Errors before a request reaches a route: a body too slow, or a request that is not HTTP. */
function answerClientError(error: Error & { code?: string }, socket: Socket, bodyTimeoutMs: number): void {
  if (!socket.writable) return;
  const timedOut = error.code === "ERR_HTTP_REQUEST_TIMEOUT";
  const status = timedOut ? "408 Request Timeout" : "400 Bad Request";
  const body = JSON.stringify({
    error: timedOut
      ? `the request did not arrive in full within ${bodyTimeoutMs} ms`
      : "the HTTP request is malformed",
  });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
