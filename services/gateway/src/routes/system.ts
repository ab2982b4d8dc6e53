/**
 * Operational endpoints: liveness, readiness (200 only while Redis answers a PING within 500 ms and
 * NATS is connected, so a load balancer routes work only to a gateway that can serve it; neither a
 * stalled Redis nor a NATS between reconnection attempts counts) and the OpenAPI document built from
 * the contracts. None is authenticated or charged. Metrics are not here: they are served on the
 * internal metrics port, never on the public one (deploy/README.md).
 */
import { buildOpenApiDocument, type OpenApiOptions } from "@rda/contracts";
import { isNatsConnected, redisResponds } from "@rda/service-kit";
import type { FastifyInstance } from "fastify";
import type { GatewayContext } from "../core/context.ts";
import { sendError } from "../http/send-error.ts";

export const OPENAPI_PATH = "/openapi.json";
export const SYSTEM_PATHS = ["/livez", "/readyz", OPENAPI_PATH] as const;

export function registerSystemRoutes(
  app: FastifyInstance,
  ctx: GatewayContext,
  document: OpenApiOptions = {},
): void {
  const openApi = JSON.stringify(buildOpenApiDocument(document));
  app.get("/livez", async (_request, reply) => reply.send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const checks = { redis: await redisResponds(ctx.redis), nats: isNatsConnected(ctx.nats) };
    if (checks.redis && checks.nats) return reply.send({ status: "ready", checks });
    const down = Object.keys(checks).filter((name) => !checks[name as keyof typeof checks]);
    return sendError(
      reply,
      { code: "service_unavailable", detail: `not ready: ${down.join(" and ")} down` },
      ctx.errors,
    );
  });
  app.get(OPENAPI_PATH, async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(openApi),
  );
}
