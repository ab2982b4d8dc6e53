/**
 * `buildGateway(deps)`: the gateway as a value (STYLE.md §1). It takes live connections and settings,
 * neither reads the environment nor listens; `main.ts` is the process shell.
 */
import type { Subjects } from "@rda/contracts";
import type { Logger, NatsConnection, Redis, RedisKeys } from "@rda/service-kit";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { createAdapterClient } from "./adapter-client.ts";
import { createBillingClient } from "./billing-client.ts";
import type { GatewayContext } from "./context.ts";
import { answerClientError, installHooks } from "./http/hooks.ts";
import { fastifyPath } from "./http/route.ts";
import { createKeyDirectory } from "./key-directory.ts";
import { createMetrics, type GatewayMetrics } from "./metrics.ts";
import { createRateLimiter, type Rate } from "./rate-limiter.ts";
import { createRefundPublisher } from "./refunds.ts";
import { generateRequestId } from "./request-id.ts";
import { registerMcpProxy } from "./routes/mcp-proxy.ts";
import { registerSystemRoutes } from "./routes/system.ts";
import { API_ROUTES } from "./routes.ts";

export interface GatewaySettings {
  /** UPSTREAM_RESERVE_QPS / _BURST: the shared pool for all data traffic (issue 6 §4). */
  readonly reserve: Rate;
  /** TOPUP_URL, quoted in 402 bodies. */
  readonly topUpUrl: string;
  readonly adapterTimeoutMs: number;
  readonly billingTimeoutMs?: number;
  readonly mcpUrl: string;
  /** Upper bound on how long a key lookup is cached when no revocation event arrives. */
  readonly keyCacheTtlMs?: number;
}

export interface GatewayDeps {
  readonly redis: Redis;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly logger: Logger;
  readonly settings: GatewaySettings;
  readonly metrics?: GatewayMetrics;
}

/** Bodies are only accepted on /mcp (JSON-RPC); the data API is GET-only. */
const BODY_LIMIT_BYTES = 1_048_576;

export function buildGateway(deps: GatewayDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One access line per request is written by the onResponse hook (http/hooks.ts) instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    genReqId: generateRequestId,
    // Long path names reach the schema (and get a 400 naming the rule) instead of a bare 404.
    routerOptions: { maxParamLength: 1_000 },
    exposeHeadRoutes: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // During shutdown, in-flight and keep-alive requests still finish with real answers.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
  });
  const ctx = buildContext(deps);
  installHooks(app, ctx);
  for (const route of API_ROUTES) app.get(fastifyPath(route.path), route.build(ctx));
  registerSystemRoutes(app, ctx);
  app.register(async (scope) => registerMcpProxy(scope, ctx));
  app.addHook("onClose", async () => {
    await ctx.keys.stop();
    await ctx.refunds.stop();
  });
  return app;
}

function buildContext(deps: GatewayDeps): GatewayContext {
  const { nats, redis, subjects, logger, settings } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const billing = createBillingClient({
    nats,
    subjects,
    metrics,
    timeoutMs: settings.billingTimeoutMs ?? 2_000,
  });
  return {
    nats,
    redis,
    logger,
    metrics,
    billing,
    keys: createKeyDirectory({ nats, subjects, billing, logger, ttlMs: settings.keyCacheTtlMs }),
    limiter: createRateLimiter({
      redis,
      keys: deps.keys,
      reserve: settings.reserve,
      onLimited: (scope) => metrics.rateLimited.inc({ scope }),
    }),
    adapters: createAdapterClient({ nats, subjects, metrics, timeoutMs: settings.adapterTimeoutMs }),
    refunds: createRefundPublisher({ nats, subjects, logger, metrics }),
    errors: { topUpUrl: settings.topUpUrl },
    mcpUrl: settings.mcpUrl,
  };
}
