/**
 * POST /mcp: authenticate (401 before any MCP work), check Accept (406 only when JSON is refused),
 * parse the body ourselves (413 over the limit, -32700 when malformed), apply the batch rules of the
 * negotiated protocol version, then serve the message by its protocol era (docs/api.md#mcp-endpoint):
 * - 2026-07-28 requests carry their protocol version and client capabilities in every request's
 *   `_meta`, so the SDK's per-request handler serves them with no state at all;
 * - 2025 requests (`initialize`, then calls with `MCP-Protocol-Version` 2025-11-25, 2025-06-18, …)
 *   are served by a fresh stateless Streamable HTTP transport answering JSON.
 * Either way nothing outlives the request, so any replica serves any request. GET and DELETE are
 * refused with 405: a stateless server has no SSE stream and no session to end.
 *
 * The web-standard faces are used (rather than the Node wrappers) so the request they see and the
 * response they make pass through here: the client's Accept is checked by our rule, and a batch is
 * always answered with an array, even of one answer (the SDK unwraps a single answer).
 */
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
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
import { createMcpServer, type McpServerDeps, type ToolCaller } from "./mcp-server.ts";

export interface McpRouteOptions extends McpServerDeps {
  bodyLimitBytes: number;
}

/** The request headers the SDK reads (the `mcp-*` family: protocol version, method, name); the rest stay here. */
const FORWARDED_HEADERS = ["content-type", "last-event-id"];

export async function mcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "string", bodyLimit: options.bodyLimitBytes },
    (_req, body, done) => done(null, body),
  );
  // One handler per process for 2026-07-28 requests; it builds a server per request for its caller.
  const modern = createMcpHandler(({ authInfo }) => createMcpServer(options, callerOf(authInfo), "modern"), {
    legacy: "reject",
    maxRequestBodySize: options.bodyLimitBytes,
    // The SDK answers refusals and failures itself; this is where their reasons reach the log.
    onerror: (error) => app.log.warn({ err: error }, "MCP request refused or failed"),
  });
  app.addHook("onClose", () => modern.close());
  app.post("/mcp", { onRequest: requireKey }, (request, reply) => serveMcp(request, reply, options, modern));
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

async function serveMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  options: McpRouteOptions,
  modern: McpHttpHandler,
) {
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
  const caller = { apiKey: key.value, requestId: request.id, rateKey: boundKeyId(key.value) ?? key.value };
  // The connection closing (the agent cancelled or went away) aborts the tool calls still running.
  const gone = new AbortController();
  reply.raw.on("close", () => {
    gone.abort();
    // No answer will be sent, so the onResponse hook that logs each request will not run.
    if (!reply.sent)
      request.log.info(
        { method: "POST", ms: Math.round(reply.elapsedTime) },
        "mcp request ended by the client",
      );
  });
  try {
    const web = webRequest(request, gone.signal);
    const response = (await isLegacyRequest(web, body.value))
      ? await serveLegacy(options, caller, web, body.value, gone.signal)
      : await modern.fetch(web, { parsedBody: body.value, authInfo: authInfoOf(caller) });
    return await sendResponse(reply, response, isBatch);
  } catch (error) {
    request.log.error({ err: error }, "MCP request failed");
    return reply.code(500).send(jsonRpcError(JSON_RPC_INTERNAL_ERROR, "internal error"));
  }
}

/** A 2025-era request: a fresh server on a stateless transport that answers JSON, closed with the request. */
async function serveLegacy(
  options: McpRouteOptions,
  caller: ToolCaller,
  web: Request,
  parsedBody: unknown,
  gone: AbortSignal,
): Promise<Response> {
  const server = createMcpServer(options, caller);
  // JSON responses rather than an SSE stream: every tool answers once, and proxies handle JSON best.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const close = () => {
    void transport.close();
    void server.close();
  };
  gone.addEventListener("abort", close, { once: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(web, { parsedBody });
  } finally {
    gone.removeEventListener("abort", close);
    close();
  }
}

/**
 * The caller travels to the per-request server as the SDK's pass-through AuthInfo: the credential is
 * the token, and the request id and rate-limit key ride in `extra`.
 */
function authInfoOf(caller: ToolCaller): AuthInfo {
  return {
    token: caller.apiKey,
    clientId: caller.rateKey,
    scopes: [],
    extra: { requestId: caller.requestId },
  };
}

function callerOf(authInfo: AuthInfo | undefined): ToolCaller {
  if (!authInfo) throw new Error("an MCP request reached the server without its caller");
  return { apiKey: authInfo.token, rateKey: authInfo.clientId, requestId: String(authInfo.extra?.requestId) };
}

function webRequest(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers({ accept: TRANSPORT_ACCEPT });
  for (const [name, value] of Object.entries(request.headers)) {
    const forwarded = FORWARDED_HEADERS.includes(name) || name.startsWith("mcp-");
    if (forwarded && typeof value === "string") headers.set(name, value);
  }
  return new Request(`http://${request.host}${request.url}`, { method: "POST", headers, signal });
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
