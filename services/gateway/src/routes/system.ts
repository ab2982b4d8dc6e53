/**
 * Operational endpoints: liveness, readiness (200 only while Redis is ready and NATS connected, so a
 * load balancer routes work only to a gateway that can serve it), Prometheus metrics, and the OpenAPI
 * document built from the contracts (spec §1). None is authenticated or charged.
 */
import { buildOpenApiDocument } from "@rda/contracts";
import { isNatsConnected, isRedisReady } from "@rda/service-kit";
import type { FastifyInstance } from "fastify";
import type { GatewayContext } from "../context.ts";
import { sendError } from "../http/send-error.ts";

export const SYSTEM_PATHS = ["/livez", "/readyz", "/metrics", "/openapi.json"] as const;

export function registerSystemRoutes(app: FastifyInstance, ctx: GatewayContext): void {
  const openApi = JSON.stringify(buildOpenApiDocument());
  app.get("/livez", async (_request, reply) => reply.send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const checks = { redis: isRedisReady(ctx.redis), nats: isNatsConnected(ctx.nats) };
    if (checks.redis && checks.nats) return reply.send({ status: "ready", checks });
    const down = Object.keys(checks).filter((name) => !checks[name as keyof typeof checks]);
    return sendError(
      reply,
      { code: "service_unavailable", detail: `not ready: ${down.join(" and ")} down` },
      ctx.errors,
    );
  });
  app.get("/metrics", async (_request, reply) =>
    reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()),
  );
  app.get("/openapi.json", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(openApi),
  );
}
