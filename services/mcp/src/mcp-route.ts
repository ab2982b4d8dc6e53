/**
 * POST /mcp: authenticate (401 before any MCP work), parse the body ourselves (413 over the limit,
 * -32700 when malformed), then hand the message to a fresh stateless Streamable HTTP transport.
 * GET and DELETE are refused with 405: a stateless server has no SSE stream and no session to end.
 */
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ERRORS } from "@rda/contracts";
import type { GatewayClient } from "@rda/gateway-client";
import type { Logger } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { callerKey } from "./caller-key.ts";
import { JSON_RPC_INTERNAL_ERROR, JSON_RPC_PARSE_ERROR, jsonRpcError, parseJsonBody } from "./json-rpc.ts";
import { createMcpServer } from "./mcp-server.ts";

export interface McpRouteOptions {
  client: GatewayClient;
  logger: Logger;
  bodyLimitBytes: number;
}

export async function mcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "string", bodyLimit: options.bodyLimitBytes },
    (_req, body, done) => done(null, body),
  );
  app.post("/mcp", { onRequest: requireKey }, (request, reply) => serveMcp(request, reply, options));
  app.route({
    method: ["GET", "DELETE"],
    url: "/mcp",
    handler: (_request, reply) =>
      reply.code(405).header("allow", "POST").send({
        error: "this MCP server is stateless: use POST /mcp (no SSE stream, no sessions to delete)",
      }),
  });
}

async function requireKey(request: FastifyRequest, reply: FastifyReply) {
  const key = callerKey(request.headers);
  if (key.ok) return;
  const entry = key.reason === "missing" ? ERRORS.missing_api_key : ERRORS.invalid_api_key;
  return reply.code(401).send({ error: entry.message });
}

async function serveMcp(request: FastifyRequest, reply: FastifyReply, options: McpRouteOptions) {
  const body = parseJsonBody(request.body);
  if (!body.ok) return reply.code(400).send(jsonRpcError(JSON_RPC_PARSE_ERROR, body.message));
  const key = callerKey(request.headers);
  if (!key.ok) return reply.code(401).send({ error: ERRORS.missing_api_key.message });
  const server = createMcpServer(options.client, { apiKey: key.key, requestId: request.id });
  // JSON responses rather than an SSE stream: every tool answers once, and proxies handle JSON best.
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.hijack();
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
    // Hijacked replies skip fastify's onResponse hooks, so this request's log line is written here.
    request.log.info(
      { method: "POST", status: reply.raw.statusCode, ms: Math.round(reply.elapsedTime) },
      "mcp request",
    );
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, body.value);
  } catch (error) {
    options.logger.error({ err: error, reqId: request.id }, "MCP request failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(JSON.stringify(jsonRpcError(JSON_RPC_INTERNAL_ERROR, "internal error")));
    }
  }
}
