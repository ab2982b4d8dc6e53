/**
 * POST /mcp: authenticate (401 before any MCP work), check Accept (406 only when JSON is refused),
 * parse the body ourselves (413 over the limit, -32700 when malformed), apply the batch rules of the
 * negotiated protocol version, then hand the message to a fresh stateless Streamable HTTP transport.
 * GET and DELETE are refused with 405: a stateless server has no SSE stream and no session to end.
 *
 * The web-standard transport is used (rather than the Node wrapper) so the request it sees and the
 * response it makes pass through here: the client's Accept is checked by our rule, and a batch is
 * always answered with an array, even of one answer (the SDK unwraps a single answer).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ERRORS, err, errorBody, INTERNAL_CREDENTIAL_HEADER, ok, type Result } from "@rda/contracts";
import { type ApiKeyProblem, readApiKey } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { acceptsJson, TRANSPORT_ACCEPT } from "./accept.ts";
import {
  batchProblem,
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR,
  jsonRpcError,
  parseJsonBody,
} from "./json-rpc.ts";
import { createMcpServer, type McpServerDeps } from "./mcp-server.ts";

export interface McpRouteOptions extends McpServerDeps {
  bodyLimitBytes: number;
}

/** The request headers the transport reads; the rest stay here. */
const FORWARDED_HEADERS = ["content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"];

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
      reply
        .code(405)
        .header("allow", "POST")
        .send(
          errorBody(
            "method_not_allowed",
            "this MCP server is stateless: use POST /mcp (no SSE stream, no sessions to delete)",
          ),
        ),
  });
}

/**
 * What this request's tool calls authenticate with: the caller's API key, or for an OAuth caller the
 * gateway's internal credential for the caller's key (the gateway keeps the access token itself).
 */
function callerCredential(request: FastifyRequest): Result<string, ApiKeyProblem> {
  const internal = request.headers[INTERNAL_CREDENTIAL_HEADER];
  if (typeof internal === "string")
    return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(internal) ? ok(internal) : err("malformed");
  return readApiKey(request.headers);
}

/**
 * The key id an internal credential names (its `sub`), read without checking the signature: it only
 * files the key's rate limit for the 429 text; the gateway checks the credential on every call.
 */
function boundKeyId(credential: string): string | undefined {
  const [, payload] = credential.split(".");
  if (payload === undefined || !credential.includes(".")) return undefined;
  try {
    const sub = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown }).sub;
    return typeof sub === "string" ? sub : undefined;
  } catch {
    return undefined;
  }
}

async function requireKey(request: FastifyRequest, reply: FastifyReply) {
  const key = callerCredential(request);
  if (key.ok) return;
  const code = key.error === "missing" ? "missing_api_key" : "invalid_api_key";
  return reply.code(401).send(errorBody(code, ERRORS[code].message));
}

async function serveMcp(request: FastifyRequest, reply: FastifyReply, options: McpRouteOptions) {
  if (!acceptsJson(request.headers.accept)) {
    return reply.code(406).send({
      error:
        "this MCP server answers only application/json: send Accept: application/json, text/event-stream",
    });
  }
  const body = parseJsonBody(request.body);
  if (!body.ok) return reply.code(400).send(jsonRpcError(JSON_RPC_PARSE_ERROR, body.error));
  const isBatch = Array.isArray(body.value);
  if (isBatch) {
    const version = request.headers["mcp-protocol-version"];
    const problem = batchProblem(body.value as unknown[], typeof version === "string" ? version : undefined);
    if (problem) return reply.code(400).send(jsonRpcError(JSON_RPC_INVALID_REQUEST, problem));
  }
  const key = callerCredential(request);
  if (!key.ok) return reply.code(401).send(errorBody("missing_api_key", ERRORS.missing_api_key.message));
  const server = createMcpServer(options, {
    apiKey: key.value,
    requestId: request.id,
    rateKey: boundKeyId(key.value) ?? key.value,
  });
  // JSON responses rather than an SSE stream: every tool answers once, and proxies handle JSON best.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  // The connection closing (the agent cancelled or went away) aborts the tool calls still running.
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
    // No answer will be sent, so the onResponse hook that logs each request will not run.
    if (!reply.sent)
      request.log.info(
        { method: "POST", ms: Math.round(reply.elapsedTime) },
        "mcp request ended by the client",
      );
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(webRequest(request), { parsedBody: body.value });
    return await sendResponse(reply, response, isBatch);
  } catch (error) {
    request.log.error({ err: error }, "MCP request failed");
    return reply.code(500).send(jsonRpcError(JSON_RPC_INTERNAL_ERROR, "internal error"));
  }
}

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers({ accept: TRANSPORT_ACCEPT });
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === "string") headers.set(name, value);
  }
  return new Request(`http://${request.host}${request.url}`, { method: "POST", headers });
}

async function sendResponse(reply: FastifyReply, response: Response, isBatch: boolean) {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== "content-length") reply.header(name, value);
  });
  const text = await response.text();
  if (text === "") return reply.send();
  // A batch is answered with an array of answers, however many there are.
  const answer = isBatch && response.status === 200 ? asArray(text) : text;
  return reply.type("application/json").send(answer);
}

function asArray(text: string): string {
  return text.trimStart().startsWith("[") ? text : `[${text}]`;
}
