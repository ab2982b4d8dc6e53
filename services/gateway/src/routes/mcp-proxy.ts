/**
 * /mcp is proxied to the MCP service with @fastify/http-proxy (headers and streamed bodies pass
 * through). The gateway checks that a valid key is present (spec §5: 401 before the MCP layer) but
 * neither charges nor rate-limits here: the MCP service calls /v1 with the caller's key, and those
 * calls are charged and limited like any other (DESIGN.md: MCP billing is HTTP billing).
 */
import httpProxy from "@fastify/http-proxy";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { GatewayContext } from "../context.ts";
import { authenticate } from "../http/authenticate.ts";
import { sendError } from "../http/send-error.ts";

export const MCP_PREFIX = "/mcp";

export async function registerMcpProxy(app: FastifyInstance, ctx: GatewayContext): Promise<void> {
  await app.register(httpProxy, {
    upstream: ctx.mcpUrl,
    prefix: MCP_PREFIX,
    rewritePrefix: MCP_PREFIX,
    preHandler: async (request, reply) => {
      const key = await authenticate(request, ctx);
      if (!key.ok) return sendError(reply, key.failure, ctx.errors);
    },
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => ({ ...headers, "x-request-id": request.id }),
      onError: (reply, { error }) => {
        sendError(
          reply as FastifyReply,
          { code: "service_unavailable", internal: `MCP service: ${error.message}` },
          ctx.errors,
        );
      },
    },
  });
}
