/**
 * Browsers send `Origin`; the transport spec requires a server to check it, so that a web page the
 * user happens to visit cannot drive the user's MCP connection. A request from an origin that is not
 * configured (MCP_ALLOWED_ORIGINS) is refused with 403; one from a configured origin gets CORS
 * headers. Requests without Origin (agents, CLIs, servers) are not browsers and pass.
 */
import type { FastifyInstance } from "fastify";

const ALLOWED_HEADERS = [
  "accept",
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "x-api-key",
  "x-request-id",
].join(", ");
const EXPOSED_HEADERS = ["mcp-protocol-version", "mcp-session-id", "retry-after", "x-request-id"].join(", ");
const PREFLIGHT_MAX_AGE_SECONDS = "600";

export function registerOriginCheck(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const allowed = new Set(allowedOrigins);
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !request.url.startsWith("/mcp")) return;
    if (!allowed.has(origin)) {
      return reply.code(403).send({
        error: `requests from the web origin ${origin.slice(0, 200)} are not allowed to use this MCP server`,
      });
    }
    reply
      .header("access-control-allow-origin", origin)
      .header("access-control-expose-headers", EXPOSED_HEADERS)
      .header("vary", "Origin");
  });
  // A browser asks before a POST with JSON and an API key; the answer lists what it may send.
  app.options("/mcp", (_request, reply) =>
    reply
      .code(204)
      .header("allow", "POST, OPTIONS")
      .header("access-control-allow-methods", "POST, GET, DELETE")
      .header("access-control-allow-headers", ALLOWED_HEADERS)
      .header("access-control-max-age", PREFLIGHT_MAX_AGE_SECONDS)
      .send(),
  );
}
