/**
 * /mcp is proxied to the MCP service with @fastify/http-proxy. The gateway checks the key first (401
 * before the MCP layer) and puts /mcp under the key's own rate limit (docs/api.md#mcp-endpoint): each
 * JSON-RPC message that is not a tool call spends one token of the key's bucket here; a tool call
 * spends its token, and its credit, at the inner /v1 call the MCP service makes with the caller's
 * key — so MCP billing is HTTP billing. The body is read once (bounded by the app's body limit) to
 * count its messages, and the same bytes are forwarded.
 *
 * An OAuth caller's access token stops here (http/mcp-caller.ts): the MCP service receives, instead
 * of the `Authorization` header, a short-lived internal credential for the bound key, which it uses
 * for those inner calls on the gateway's internal listener. Every 401 here carries the
 * `WWW-Authenticate` challenge that leads a client to the OAuth metadata.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import httpProxy from "@fastify/http-proxy";
import { INTERNAL_CREDENTIAL_HEADER } from "@rda/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling } from "../core/admission.ts";
import type { GatewayContext } from "../core/context.ts";
import { authenticateMcpCaller } from "../http/mcp-caller.ts";
import { readBody } from "../http/read-body.ts";
import { sendError } from "../http/send-error.ts";
import { challenge } from "../oauth/protected-resource.ts";

export const MCP_PREFIX = "/mcp";

export async function registerMcpProxy(app: FastifyInstance, ctx: GatewayContext): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request: FastifyRequest, payload: IncomingMessage) =>
    readBody(payload, ctx.body),
  );
  await app.register(httpProxy, {
    upstream: ctx.mcpUrl,
    prefix: MCP_PREFIX,
    rewritePrefix: MCP_PREFIX,
    proxyPayloads: false,
    preHandler: (request, reply) => gate(request, reply, ctx),
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => forwardedHeaders(request, headers),
      onError: (reply, { error }) => {
        allowOriginToRead(reply.request as FastifyRequest, reply as FastifyReply, ctx);
        sendError(
          reply as FastifyReply,
          { code: "service_unavailable", internal: `MCP service: ${error.message}` },
          ctx.errors,
        );
      },
    },
  });
}

async function gate(request: FastifyRequest, reply: FastifyReply, ctx: GatewayContext) {
  // A browser's CORS preflight never carries credentials; the MCP service answers it by Origin.
  if (request.method === "OPTIONS") return;
  const caller = await authenticateMcpCaller(request, ctx);
  if (!caller.ok) {
    allowOriginToRead(request, reply, ctx);
    const { code, detail } = caller.error;
    const refused = code === "invalid_token" || code === "invalid_api_key";
    const error = refused
      ? { code: "invalid_token", description: detail ?? "unknown or revoked API key" }
      : undefined;
    if (code !== "service_unavailable")
      reply.header("www-authenticate", challenge(ctx.oauth.resource, error));
    return sendError(reply, caller.error, ctx.errors);
  }
  request.internalCredential = caller.value.internalCredential;
  const key = caller;
  const body = Buffer.isBuffer(request.body) ? request.body : undefined;
  // The proxy streams a body it is given as a stream; the same bytes as received go on.
  if (body) request.body = Readable.from([body]);
  const tokens = tokensFor(body);
  if (tokens === 0) return;
  const admission = await admitThroughBilling(ctx, key.value.key, {
    requestId: request.id,
    operation: "mcp",
    credits: 0,
    tokens,
  });
  if (!admission.ok) {
    allowOriginToRead(request, reply, ctx);
    return sendError(reply, admission.error, ctx.errors);
  }
}

/** Headers a browser page needs to read the gateway's refusals: the OAuth challenge, when to retry. */
const EXPOSED_HEADERS = "www-authenticate, retry-after, x-request-id, ratelimit, ratelimit-policy";

/**
 * An answer the gateway gives at /mcp itself, in place of the MCP service, carries the CORS headers
 * the MCP service would give a configured origin (services/mcp/src/origin.ts); answers the MCP
 * service gives carry its own. Another origin's page gets nothing it can read, as from the service.
 */
function allowOriginToRead(request: FastifyRequest, reply: FastifyReply, ctx: GatewayContext): void {
  const origin = request.headers.origin;
  if (origin === undefined || !ctx.mcpAllowedOrigins.has(origin)) return;
  reply
    .header("access-control-allow-origin", origin)
    .header("access-control-expose-headers", EXPOSED_HEADERS)
    .header("vary", "Origin");
}

/**
 * What the MCP service receives: the caller's headers and the gateway's request id; for an OAuth
 * caller the internal credential in place of the access token (never passed through). A credential
 * header a caller sent itself never reaches the MCP service.
 */
function forwardedHeaders(
  request: { id: string; internalCredential?: string },
  headers: IncomingHttpHeaders,
) {
  const { [INTERNAL_CREDENTIAL_HEADER]: _sent, ...forwarded }: IncomingHttpHeaders = headers;
  forwarded["x-request-id"] = request.id;
  if (request.internalCredential === undefined) return forwarded;
  const { authorization: _token, ...withoutToken } = forwarded;
  return { ...withoutToken, [INTERNAL_CREDENTIAL_HEADER]: request.internalCredential };
}

/**
 * Bucket tokens a request to /mcp spends: one per message that is not a tool call, and at least one
 * unless every message is a tool call (a body that is not JSON, an empty batch, a GET).
 */
export function tokensFor(body: Buffer | undefined): number {
  let parsed: unknown;
  try {
    parsed = body === undefined || body.length === 0 ? [] : JSON.parse(body.toString("utf8"));
  } catch {
    return 1;
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const spending = messages.filter((message) => !isToolCall(message)).length;
  if (messages.length > 0 && spending === 0) return 0;
  return Math.min(Math.max(1, spending), MAX_TOKENS);
}

function isToolCall(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as { method?: unknown }).method === "tools/call"
  );
}

/** Billing spends at most this many tokens in one admission; a bigger batch is refused by the bucket anyway. */
const MAX_TOKENS = 1_000;
