/**
 * The MCP service as a value: routes (/livez, /readyz, /mcp) and error answers, no listening, no
 * environment. `index.ts` starts it; tests may use it with inject().
 */
import { randomUUID } from "node:crypto";
import { requestIdSchema } from "@rda/contracts";
import type { GatewayClient } from "@rda/gateway-client";
import type { Logger } from "@rda/service-kit";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from "fastify";
import { mcpRoute } from "./mcp-route.ts";

export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

export interface McpAppDeps {
  client: GatewayClient;
  logger: Logger;
  bodyLimitBytes?: number;
  /** True once shutdown began, so /readyz turns 503 and the balancer stops sending work. */
  isDraining?: () => boolean;
}

export function buildMcpApp(deps: McpAppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Probes would drown the log; one line per /mcp request is written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // A caller's x-request-id (validated) follows the call to the gateway for correlation.
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && requestIdSchema.safeParse(given).success ? given : randomUUID();
    },
  });
  app.addHook("onResponse", async (request, reply) => {
    // Refusals only (401, 405, 413, -32700): served MCP requests are hijacked and logged by mcp-route.
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
  app.register(mcpRoute, {
    client: deps.client,
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: "no such endpoint: use POST /mcp" }),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    const message =
      status === 413
        ? `request body too large: the limit is ${deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES} bytes`
        : status >= 500
          ? "internal error"
          : error.message;
    return reply.code(status).send({ error: message });
  });
  return app;
}
