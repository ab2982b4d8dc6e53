/**
 * The gateway's environment, validated once at start (docs/operations.md#environment), and the one
 * resolution of its settings: `main.ts` and the test stacks both build the gateway's settings with
 * `gatewaySettingsOf(loadGatewayConfig(env))`, so a default is written only here (or, for a bound
 * the gateway shares with another process, in `@rda/contracts`' bounds).
 */
import { DEADLINE_DEFAULTS, deadlinesWithDefaults, PENDING_DEBIT_LIMITS } from "@rda/contracts";
import { assertDeadlineOrder, ConfigError, env, loadConfig, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";
import { DEFAULT_IDEMPOTENCY_LIMITS, REPLAY_SECONDS } from "../core/idempotency.ts";
import { KEY_CACHE_TTL_MS } from "../core/key-directory.ts";
import type { GatewaySettings } from "./app.ts";

export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: env.host(),
  /** The internal listener, for the MCP service's inner calls only; never routed publicly. */
  GATEWAY_INTERNAL_PORT: env.port(8081),
  /** Its bind address; default HOST. */
  GATEWAY_INTERNAL_HOST: z.string().min(1).optional(),
  /**
   * Signs the internal credentials the MCP service gets for OAuth callers; the same on every
   * replica. Unset: a random one per process, which works only with a single gateway.
   */
  GATEWAY_INTERNAL_SECRET: z
    .string()
    .min(32, { error: "must be at least 32 characters (openssl rand -base64 32)" })
    .optional(),
  /**
   * Signs the developer portal's credentials (its monitor and export pages' calls on the internal
   * listener), shared by the portal and the gateways only, and never GATEWAY_INTERNAL_SECRET's value.
   * Unset: the gateway accepts no portal credential, so those pages answer "unavailable".
   */
  PORTAL_GATEWAY_SECRET: z
    .string()
    .min(32, { error: "must be at least 32 characters (openssl rand -base64 32)" })
    .optional(),
  /** The API's public base URL: `<PUBLIC_API_URL>/mcp` is the OAuth resource tokens must name. */
  PUBLIC_API_URL: env.httpUrl().default("http://127.0.0.1:8080"),
  /** The portal's token-signing keys (JWKS); default `<PORTAL_URL>/oauth/jwks`. */
  OAUTH_JWKS_URL: env.httpUrl().optional(),
  REDIS_URL: env.redisUrl(),
  /** Where the adapters keep their answers, when it is a Redis of its own (their CACHE_REDIS_URL). */
  CACHE_REDIS_URL: env.optionalRedisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  /** Quoted in 402 bodies; unset, the developer portal's billing page (`${PORTAL_URL}/billing`). */
  TOPUP_URL: env.httpUrl().optional(),
  /** The developer portal's public URL: the API reference's contact, and where credits are bought. */
  PORTAL_URL: env.httpUrl().default("http://127.0.0.1:8060"),
  /** The gateway's wait for an adapter: longer than the adapters' UPSTREAM_DEADLINE_MS (checked at start). */
  ADAPTER_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.adapterTimeoutMs),
  /**
   * The adapters' upstream deadline, read here only to check it against ADAPTER_TIMEOUT_MS; set it
   * to the value the adapters run with.
   */
  UPSTREAM_DEADLINE_MS: env.positiveInt(DEADLINE_DEFAULTS.upstreamDeadlineMs),
  /** Billing answers from Redis; anything slower than this is an outage, answered 503. */
  BILLING_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.billingTimeoutMs),
  /** A Redis command (the Idempotency-Key store) without an answer by then: 503. */
  REDIS_COMMAND_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.redisCommandTimeoutMs),
  /**
   * How long a debit may stay pending before billing voids (refunds) it; unset, ADAPTER_TIMEOUT_MS
   * plus DEADLINE_DEFAULTS.pendingDebitMarginMs. It must exceed ADAPTER_TIMEOUT_MS: an answer
   * is written, then settled, after that.
   */
  PENDING_DEBIT_MS: z.coerce
    .number({ error: "must be a positive integer" })
    .int({ error: "must be a positive integer" })
    .min(PENDING_DEBIT_LIMITS.minMs, { error: `must be at least ${PENDING_DEBIT_LIMITS.minMs}` })
    .max(PENDING_DEBIT_LIMITS.maxMs, {
      error: `must be at most ${PENDING_DEBIT_LIMITS.maxMs}, the longest deadline billing accepts`,
    })
    .optional(),
  /** The Idempotency-Key store's bounds (docs/operations.md#the-idempotency-store). */
  IDEMPOTENCY_MAX_RESPONSE_BYTES: env.positiveInt(DEFAULT_IDEMPOTENCY_LIMITS.maxResponseBytes),
  IDEMPOTENCY_KEY_QUOTA_BYTES: env.positiveInt(DEFAULT_IDEMPOTENCY_LIMITS.keyQuotaBytes),
  IDEMPOTENCY_STORE_MAX_BYTES: env.positiveInt(DEFAULT_IDEMPOTENCY_LIMITS.storeMaxBytes),
  /** Refused keys a client address may send in a row, and per second after that. */
  FAILED_AUTH_BURST: env.positiveInt(20),
  FAILED_AUTH_QPS: env.positiveInt(1),
  /** Whose X-Forwarded-For names the client address (for the failed-authentication limit). */
  GATEWAY_TRUST_PROXY: env.trustProxy(),
  MCP_URL: env.httpUrl().default("http://127.0.0.1:8090"),
  /** The MCP service's allowed web origins: the gateway's own answers at /mcp carry CORS for them. */
  MCP_ALLOWED_ORIGINS: env.originList(),
  /** A request body (only /mcp takes one) not received in full by then is answered 408. */
  BODY_TIMEOUT_MS: env.positiveInt(10_000),
  LOG_LEVEL: env.logLevel(),
  /** Prometheus metrics on their own internal port (9200), never on PORT. */
  ...observabilityEnv(9200),
} as const;

export type GatewayConfig = Readonly<z.output<z.ZodObject<typeof gatewayConfigShape>>>;

/** The environment, validated and checked against the bounds it shares with other processes. */
export function loadGatewayConfig(source: Record<string, string | undefined> = process.env): GatewayConfig {
  const config = loadConfig(gatewayConfigShape, source);
  assertDeadlineOrder(config);
  assertDistinctSecrets(config);
  return config;
}

/** Every setting of `buildGateway`, resolved from the configuration. */
export function gatewaySettingsOf(config: GatewayConfig): GatewaySettings {
  const portalUrl = config.PORTAL_URL.replace(/\/+$/, "");
  return {
    topUpUrl: topUpUrlOf(config),
    portalUrl,
    adapterTimeoutMs: config.ADAPTER_TIMEOUT_MS,
    billingTimeoutMs: config.BILLING_TIMEOUT_MS,
    pendingDebitMs: deadlinesWithDefaults(config).PENDING_DEBIT_MS,
    idempotencyReplaySeconds: REPLAY_SECONDS,
    idempotencyLimits: {
      maxResponseBytes: config.IDEMPOTENCY_MAX_RESPONSE_BYTES,
      keyQuotaBytes: config.IDEMPOTENCY_KEY_QUOTA_BYTES,
      storeMaxBytes: config.IDEMPOTENCY_STORE_MAX_BYTES,
    },
    keyCacheTtlMs: KEY_CACHE_TTL_MS,
    mcpUrl: config.MCP_URL,
    mcpAllowedOrigins: config.MCP_ALLOWED_ORIGINS,
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    failedAuth: { burst: config.FAILED_AUTH_BURST, qps: config.FAILED_AUTH_QPS },
    trustProxy: config.GATEWAY_TRUST_PROXY,
    publicUrl: config.PUBLIC_API_URL.replace(/\/+$/, ""),
    oauthJwksUrl: config.OAUTH_JWKS_URL ?? `${portalUrl}/oauth/jwks`,
    internalSecret: config.GATEWAY_INTERNAL_SECRET,
    portalSecret: config.PORTAL_GATEWAY_SECRET,
  };
}

/**
 * The portal holds PORTAL_GATEWAY_SECRET; were it GATEWAY_INTERNAL_SECRET's value too, a portal that
 * leaked it would leak the MCP service's credentials (which spend on the data routes) with it.
 */
function assertDistinctSecrets(config: GatewayConfig): void {
  if (
    config.PORTAL_GATEWAY_SECRET !== undefined &&
    config.PORTAL_GATEWAY_SECRET === config.GATEWAY_INTERNAL_SECRET
  )
    throw new ConfigError([
      "PORTAL_GATEWAY_SECRET: must differ from GATEWAY_INTERNAL_SECRET (the portal must never hold the MCP service's secret)",
    ]);
}

/** The settings production would run with under this environment (tests pass their own few). */
export function gatewaySettingsFromEnv(source: Record<string, string | undefined>): GatewaySettings {
  return gatewaySettingsOf(loadGatewayConfig(source));
}

/** Where a 402 answer sends people to add credits: TOPUP_URL, else the portal's billing page. */
export function topUpUrlOf(config: Pick<GatewayConfig, "TOPUP_URL" | "PORTAL_URL">): string {
  return config.TOPUP_URL ?? `${config.PORTAL_URL.replace(/\/+$/, "")}/billing`;
}
