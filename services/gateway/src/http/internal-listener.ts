/**
 * The gateway's internal listener (GATEWAY_INTERNAL_PORT): where the MCP service makes its inner
 * `/v1` calls, and the developer portal its monitor and export pages' calls. It is the same app (the
 * same routes, limits and billing) on a second socket, which the deployment exposes to those two
 * services only, never publicly. Only here does the gateway accept the internal credentials it hands
 * the MCP service for OAuth callers, and the portal's credentials (on the portal's routes only:
 * authenticate.ts; both in packages/service-kit/src/gateway-credentials.ts); API keys work here as
 * everywhere. It serves the `/v1` endpoints and health, nothing else: any other path is answered
 * 404 by the app itself (`refuseUnservedInternally`), through the one error path, with its request
 * id, access line and metrics.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { GatewayContext } from "../core/context.ts";
import { sendError } from "./send-error.ts";
import { HEADER_LIMIT_BYTES } from "./server-limits.ts";

const INTERNAL = Symbol("rda.internal-listener");
const SERVED = /^\/(v1\/|livez$|readyz$)/;

export function isInternalRequest(request: FastifyRequest): boolean {
  return (request.raw as IncomingMessage & { [INTERNAL]?: true })[INTERNAL] === true;
}

/**
 * On the app's root: a request that came in on the internal listener for a path it does not serve
 * (`/mcp`, `/docs`, `/openapi.json`, …) is answered 404 before any route sees it.
 */
export function refuseUnservedInternally(app: FastifyInstance, ctx: GatewayContext): void {
  app.addHook("onRequest", async (request, reply) => {
    if (!isInternalRequest(request)) return;
    const path = request.url.split("?")[0] ?? "/";
    if (!SERVED.test(path))
      return sendError(
        reply,
        { code: "not_found", detail: "not served on the internal listener" },
        ctx.errors,
      );
  });
}

export interface InternalListener {
  readonly url: string;
  close(): Promise<void>;
}

export async function listenInternal(
  app: FastifyInstance,
  listen: { port: number; host: string },
): Promise<InternalListener> {
  // The public server's limits and timeouts (server-limits.ts) hold here too.
  const pub = app.server;
  const limits = {
    maxHeaderSize: HEADER_LIMIT_BYTES,
    headersTimeout: pub.headersTimeout,
    requestTimeout: pub.requestTimeout,
    connectionsCheckingInterval: 1_000,
  };
  const server: Server = createServer(limits, (request, response) => {
    (request as IncomingMessage & { [INTERNAL]?: true })[INTERNAL] = true;
    app.routing(request, response);
  });
  server.keepAliveTimeout = pub.keepAliveTimeout;
  server.timeout = pub.timeout;
  for (const onClientError of pub.listeners("clientError")) server.on("clientError", onClientError as never);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
