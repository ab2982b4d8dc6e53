/**
 * `buildGateway(deps)`: the gateway as a value. It takes live connections and settings,
 * neither reads the environment nor listens; `main.ts` is the process shell.
 */
import { randomBytes } from "node:crypto";
import type { Subjects } from "@rda/contracts";
import {
  createDebitEnds,
  createFailedAuthLimiter,
  createInternalCredentials,
  createPortalCredentials,
  type FailedAuthLimits,
  type Logger,
  type NatsConnection,
  type Redis,
  type RedisKeys,
  type TrustProxy,
  trustProxyOption,
} from "@rda/service-kit";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { createAdapterClient, createCachedAnswers } from "../core/adapter-client.ts";
import { createBillingClient } from "../core/admission.ts";
import type { GatewayContext } from "../core/context.ts";
import { createRefunds, createSettlement } from "../core/debits.ts";
import { createIdempotencyStore, type IdempotencyLimits } from "../core/idempotency.ts";
import { createKeyDirectory } from "../core/key-directory.ts";
import { createMetrics, type GatewayMetrics } from "../core/metrics.ts";
import { generateRequestId, installResponseHeaders } from "../http/answers.ts";
import { answerClientError } from "../http/client-error.ts";
import { answerFrameworkError, declareRequestFields, installHooks, refuseBodyOnGet } from "../http/hooks.ts";
import { refuseUnservedInternally } from "../http/internal-listener.ts";
import { serverLimits } from "../http/server-limits.ts";
import { createAccessTokenVerifier } from "../oauth/access-tokens.ts";
import { protectedResource, registerProtectedResourceMetadata } from "../oauth/protected-resource.ts";
import { watchRevokedGrants } from "../oauth/revoked-grants.ts";
import { DOCS_PREFIX, registerDocs } from "../routes/docs.ts";
import { registerExportRoutes } from "../routes/exports.ts";
import { refuseUndeclaredRoutes, registerDataApi, V1_PREFIX } from "../routes/index.ts";
import { registerMcpProxy } from "../routes/mcp-proxy.ts";
import { registerMonitorRoutes } from "../routes/monitors.ts";
import { OPENAPI_PATH, registerSystemRoutes } from "../routes/system.ts";

/**
 * Everything `buildGateway` is configured with, all resolved: `gatewaySettingsOf` (config.ts) is the
 * one place their defaults come from, for production and tests alike.
 */
export interface GatewaySettings {
  /** TOPUP_URL, quoted in 402 bodies. */
  readonly topUpUrl: string;
  readonly adapterTimeoutMs: number;
  readonly billingTimeoutMs: number;
  /**
   * How long a debit may stay pending before billing voids it (refunds it): longer than the adapter
   * timeout plus the time to write a large answer to a slow client.
   */
  readonly pendingDebitMs: number;
  /** How long a served idempotent request's response is replayed. */
  readonly idempotencyReplaySeconds: number;
  /** What the Idempotency-Key store may hold (IDEMPOTENCY_*_BYTES); defaults in idempotency.ts. */
  readonly idempotencyLimits?: Partial<IdempotencyLimits>;
  readonly mcpUrl: string;
  /**
   * MCP_ALLOWED_ORIGINS, as the MCP service reads it: web pages whose answers from /mcp a browser
   * may read. The gateway answers some of those itself (a refused key or token, a rate limit), and
   * a browser client must be able to read the 401's WWW-Authenticate to find OAuth.
   */
  readonly mcpAllowedOrigins: readonly string[];
  /** Request line and headers, then a body, not received in full within this: 408. */
  readonly bodyTimeoutMs: number;
  /** PORTAL_URL: the developer portal, named in the API reference as its contact. */
  readonly portalUrl: string;
  /** Upper bound on how long a key lookup is cached when no revocation event arrives. */
  readonly keyCacheTtlMs: number;
  /**
   * How long a cached answer's read may take before it counts as a miss (default
   * CACHE_CALL_TIMEOUT_MS). No deployment's to choose; a test on a starved machine widens it when
   * the bound itself is not what it checks.
   */
  readonly cacheReadTimeoutMs?: number;
  /**
   * How long a monitors or exports command waits for the service that owns it (default: each
   * command's own, 10 to 40 s). No deployment's to choose; a test makes that service's answer late
   * with a short one.
   */
  readonly managedCommandTimeoutMs?: number;
  /** Refused keys a client address may send (FAILED_AUTH_BURST, FAILED_AUTH_QPS). */
  readonly failedAuth: FailedAuthLimits;
  /**
   * GATEWAY_TRUST_PROXY, fastify's `trustProxy`: whose `X-Forwarded-For` names the client address
   * the failed-authentication limit counts by; false: the connection's own address.
   */
  readonly trustProxy: TrustProxy;
  /** PUBLIC_API_URL: the API's public base; `/mcp` under it is the OAuth resource. */
  readonly publicUrl: string;
  /** OAUTH_JWKS_URL: the portal's token-signing keys. */
  readonly oauthJwksUrl: string;
  /**
   * GATEWAY_INTERNAL_SECRET: signs the MCP service's internal credentials; every replica needs the
   * same. Unset: a random one, which works only while one gateway serves both sides.
   */
  readonly internalSecret: string | undefined;
  /**
   * PORTAL_GATEWAY_SECRET: verifies the developer portal's credentials (internal listener, its
   * monitor and export pages only). Unset: none is accepted.
   */
  readonly portalSecret?: string | undefined;
}

export interface GatewayDeps {
  readonly redis: Redis;
  /** Where the adapters keep their answers (CACHE_REDIS_URL); default `redis`. */
  readonly cacheRedis?: Redis;
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
  const ctx = buildContext(deps);
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One access line per request is written by the onResponse hook (http/hooks.ts) instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    genReqId: generateRequestId,
    ...serverLimits({
      bodyTimeoutMs: ctx.body.timeoutMs,
      adapterTimeoutMs: deps.settings.adapterTimeoutMs,
      billingTimeoutMs: ctx.billingTimeoutMs,
    }),
    exposeHeadRoutes: false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(deps.settings.trustProxy),
    // During shutdown, in-flight and keep-alive requests still finish with real answers.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => answerFrameworkError(ctx, error, request, reply),
    clientErrorHandler: answerClientError(ctx),
  });
  declareRequestFields(app);
  refuseUndeclaredRoutes(app);
  installHooks(app, ctx);
  refuseUnservedInternally(app, ctx);
  installResponseHeaders(app, DOCS_PREFIX);
  // /mcp forwards whatever it is sent, bodies on any method included, to the MCP service.
  app.register(async (scope) => registerMcpProxy(scope, ctx));
  // Everything the gateway answers itself reads no body on GET.
  app.register(async (served) => {
    refuseBodyOnGet(served, ctx);
    served.register(async (v1) => registerDataApi(v1, ctx), { prefix: V1_PREFIX });
    const managedCommands = { timeoutMs: deps.settings.managedCommandTimeoutMs };
    served.register(async (scope) => registerMonitorRoutes(scope, ctx, deps.subjects, managedCommands));
    served.register(async (scope) => registerExportRoutes(scope, ctx, deps.subjects, managedCommands));
    registerProtectedResourceMetadata(served, ctx.oauth.resource);
    registerSystemRoutes(served, ctx, {
      portalUrl: deps.settings.portalUrl,
      topUpUrl: deps.settings.topUpUrl,
    });
    served.register(async (scope) => registerDocs(scope, OPENAPI_PATH));
  });
  app.addHook("onClose", async () => {
    await ctx.keys.stop();
    ctx.oauth.revokedGrants.stop();
    await ctx.settlement.stop();
  });
  return app;
}

function buildContext(deps: GatewayDeps): GatewayContext {
  const { nats, redis, subjects, logger, settings } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const { billingTimeoutMs, pendingDebitMs } = settings;
  const billing = createBillingClient({ nats, subjects, metrics, timeoutMs: billingTimeoutMs });
  const ends = createDebitEnds({
    billing: billing.rpc,
    nats,
    subjects,
    logger,
    settleRetryMs: pendingDebitMs,
    hooks: {
      refunded: (reason) => metrics.creditsRefunded.inc({ reason }),
      refundPublishFailed: () => metrics.refundPublishFailures.inc(),
    },
  });
  const resource = protectedResource(settings.publicUrl, settings.portalUrl);
  const revokedGrants = watchRevokedGrants({ nats, subjects, logger });
  const idempotency = createIdempotencyStore(redis, deps.keys, {
    replaySeconds: settings.idempotencyReplaySeconds,
    limits: settings.idempotencyLimits,
    onNotKept: (reason) => metrics.idempotencyNotKept.inc({ reason }),
  });
  metrics.watchIdempotencyStore(idempotency);
  return {
    nats,
    redis,
    logger,
    metrics,
    billing,
    oauth: {
      resource,
      revokedGrants,
      tokens: createAccessTokenVerifier({
        resource,
        jwksUrl: settings.oauthJwksUrl,
        revokedGrants,
      }),
    },
    internalCredentials: createInternalCredentials(
      settings.internalSecret ?? randomBytes(32).toString("base64url"),
    ),
    ...(settings.portalSecret === undefined
      ? {}
      : { portalCredentials: createPortalCredentials(settings.portalSecret) }),
    keys: createKeyDirectory({
      nats,
      subjects,
      billing,
      logger,
      ttlMs: settings.keyCacheTtlMs,
      onLookup: (result) => metrics.keyCache.inc({ result }),
    }),
    adapters: createAdapterClient({ nats, subjects, metrics, timeoutMs: settings.adapterTimeoutMs }),
    cachedAnswers: createCachedAnswers({
      redis: deps.cacheRedis ?? redis,
      keys: deps.keys.upstreamCache,
      metrics,
      timeoutMs: settings.cacheReadTimeoutMs,
    }),
    refunds: createRefunds(ends),
    settlement: createSettlement({ ends, logger }),
    idempotency,
    failedAuth: createFailedAuthLimiter(settings.failedAuth),
    errors: { topUpUrl: settings.topUpUrl, spendCapUrl: `${settings.portalUrl}/keys` },
    settings: { pendingDebitMs },
    billingTimeoutMs,
    mcpUrl: settings.mcpUrl,
    mcpAllowedOrigins: new Set(settings.mcpAllowedOrigins),
    body: { limitBytes: BODY_LIMIT_BYTES, timeoutMs: settings.bodyTimeoutMs },
  };
}
