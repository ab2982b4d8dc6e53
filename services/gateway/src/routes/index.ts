/**
 * The data and account routes. The eight data endpoints are one handler driven by their OPERATIONS
 * entry; the account endpoint has its own. They are served by one encapsulated fastify plugin under
 * `/v1` (`registerDataApi`), which app.ts registers in the scope of the routes that read no body.
 * The monitors and exports routes are registered by routes/monitors.ts and routes/exports.ts, the
 * system and MCP routes by routes/system.ts and routes/mcp-proxy.ts; every public route is declared
 * in @rda/contracts (PUBLIC_ROUTES): test/contract/routes.declared.test.ts checks each is served, and
 * `refuseUndeclaredRoutes` keeps the gateway from serving one that is not.
 */
import { OPERATIONS, type OperationContract, PUBLIC_ROUTES } from "@rda/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GatewayContext } from "../core/context.ts";
import { dataRoute } from "./data.ts";
import { getAccount } from "./get-account.ts";

/** A route's handler, built from the context. */
export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** A route as this file lists it: the spec's path and a handler built from the context. */
export interface GatewayRoute {
  /** The path as the spec and the OpenAPI document write it (`/v1/users/{name}`). */
  readonly path: string;
  readonly operation: OperationContract;
  readonly build: (ctx: GatewayContext) => Handler;
}

/** `/v1/users/{name}` → `/v1/users/:name`, fastify's syntax. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

export type RawParams = Record<string, string | string[] | undefined>;

/**
 * The routes the developer portal's monitor and export pages call, and the only ones its credential
 * opens (http/authenticate.ts, through each route's `config.portal`): listing, estimating, creating,
 * reading and deleting a key's monitors, and its webhook's delivery log, test event, redelivery and
 * secret rotation; listing, quoting, reading, starting, pausing, resuming, cancelling and downloading
 * its exports. Never a data route or a pull of a monitor's items (both spend credits), never
 * /v1/account or a change of a monitor's definition, which no page makes.
 */
export const PORTAL_OPERATIONS: ReadonlySet<string> = new Set([
  "listMonitors",
  "estimateMonitor",
  "createMonitor",
  "getMonitor",
  "deleteMonitor",
  "listMonitorDeliveries",
  "testMonitorWebhook",
  "redeliverMonitorBatch",
  "rotateMonitorWebhookSecret",
  "listExports",
  "createExport",
  "getExport",
  "startExport",
  "pauseExport",
  "resumeExport",
  "cancelExport",
  "downloadExport",
]);

/** A management route's fastify config: whether the portal's credential opens it. */
export const portalConfig = (operationId: string) => ({ portal: PORTAL_OPERATIONS.has(operationId) });

export { MCP_PREFIX } from "./mcp-proxy.ts";
export { SYSTEM_PATHS } from "./system.ts";

/**
 * The nine public endpoints (docs/api.md#endpoints), one per OPERATIONS entry: each served by an
 * adapter is the one data handler driven by its entry; the account, which billing answers, has its own.
 */
export const API_ROUTES: readonly GatewayRoute[] = (Object.values(OPERATIONS) as OperationContract[]).map(
  // dataRoute refuses an entry no adapter serves: a new one of those needs its own handler here.
  (operation) => (operation === getAccount.operation ? getAccount : dataRoute(operation)),
);

/** The prefix of the public API's version; every path in API_ROUTES starts with it. */
export const V1_PREFIX = "/v1";

/** The data and account endpoints, as a plugin registered with `{ prefix: V1_PREFIX }`. */
export async function registerDataApi(v1: FastifyInstance, ctx: GatewayContext): Promise<void> {
  for (const route of API_ROUTES) {
    if (!route.path.startsWith(`${V1_PREFIX}/`)) throw new Error(`${route.path} is not under ${V1_PREFIX}`);
    v1.get(fastifyPath(route.path.slice(V1_PREFIX.length)), route.build(ctx));
  }
}

const DECLARED = new Set(PUBLIC_ROUTES.map((route) => `${route.method} ${fastifyPath(route.path)}`));

/**
 * Refuses to serve a public route that is not declared in PUBLIC_ROUTES: registering one throws, so
 * a gateway with an undeclared route under /v1 does not start (and no test passes).
 */
export function refuseUndeclaredRoutes(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith(`${V1_PREFIX}/`)) return;
    for (const method of [route.method].flat())
      if (!DECLARED.has(`${method} ${route.url}`))
        throw new Error(`${method} ${route.url} is served but not declared in PUBLIC_ROUTES`);
  });
}
