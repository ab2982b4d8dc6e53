/** The gateway's environment, validated once at start (docs/operations.md#environment). */
import { UPSTREAM_TIMEOUT_DEFAULTS, upstreamTimeoutOrderProblem } from "@rda/contracts";
import { ConfigError, env, observabilityEnv, REDIS_COMMAND_TIMEOUT_MS } from "@rda/service-kit";
import { z } from "zod";

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
  /** The API's public base URL: `<PUBLIC_API_URL>/mcp` is the OAuth resource tokens must name. */
  PUBLIC_API_URL: env.httpUrl().default("http://127.0.0.1:8080"),
  /** The portal's token-signing keys (JWKS); default `<PORTAL_URL>/oauth/jwks`. */
  OAUTH_JWKS_URL: env.httpUrl().optional(),
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  /** Quoted in 402 bodies; unset, the developer portal's billing page (`${PORTAL_URL}/billing`). */
  TOPUP_URL: env.httpUrl().optional(),
  /** The developer portal's public URL: the API reference's contact, and where credits are bought. */
  PORTAL_URL: env.httpUrl().default("http://127.0.0.1:8060"),
  /** The gateway's wait for an adapter: longer than the adapters' UPSTREAM_DEADLINE_MS (checked at start). */
  ADAPTER_TIMEOUT_MS: env.positiveInt(UPSTREAM_TIMEOUT_DEFAULTS.adapterMs),
  /** The adapters' deadline for one upstream call, read here only to check the order of the bounds. */
  UPSTREAM_DEADLINE_MS: env.positiveInt(UPSTREAM_TIMEOUT_DEFAULTS.deadlineMs),
  /** Billing answers from Redis; anything slower than this is an outage, answered 503. */
  BILLING_TIMEOUT_MS: env.positiveInt(2_000),
  /** A Redis command (the Idempotency-Key store) without an answer by then: 503. */
  REDIS_COMMAND_TIMEOUT_MS: env.positiveInt(REDIS_COMMAND_TIMEOUT_MS),
  /**
   * How long a debit may stay pending before billing voids (refunds) it; unset, ADAPTER_TIMEOUT_MS
   * plus UPSTREAM_TIMEOUT_DEFAULTS.pendingDebitMarginMs. It must exceed ADAPTER_TIMEOUT_MS: an answer
   * is written, then settled, after that.
   */
  PENDING_DEBIT_MS: z.coerce
    .number({ error: "must be a positive integer" })
    .int({ error: "must be a positive integer" })
    .min(1, { error: "must be a positive integer" })
    .optional(),
  /** The Idempotency-Key store's bounds (docs/operations.md#the-idempotency-store). */
  IDEMPOTENCY_MAX_RESPONSE_BYTES: env.positiveInt(1_048_576),
  IDEMPOTENCY_KEY_QUOTA_BYTES: env.positiveInt(8 * 1_048_576),
  IDEMPOTENCY_STORE_MAX_BYTES: env.positiveInt(512 * 1_048_576),
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

/** Where a 402 answer sends people to add credits: TOPUP_URL, else the portal's billing page. */
export function topUpUrlOf(config: Pick<GatewayConfig, "TOPUP_URL" | "PORTAL_URL">): string {
  return config.TOPUP_URL ?? `${config.PORTAL_URL.replace(/\/+$/, "")}/billing`;
}

/**
 * PENDING_DEBIT_MS, or its default. The start is refused, in one sentence naming both variables,
 * when the bounds are out of order: an upstream call must end before the gateway stops waiting for
 * it, and the gateway must answer before the debit is voided.
 */
export function pendingDebitMsOf(
  config: Pick<GatewayConfig, "PENDING_DEBIT_MS" | "ADAPTER_TIMEOUT_MS" | "UPSTREAM_DEADLINE_MS">,
): number {
  const pendingMs =
    config.PENDING_DEBIT_MS ?? config.ADAPTER_TIMEOUT_MS + UPSTREAM_TIMEOUT_DEFAULTS.pendingDebitMarginMs;
  const problem = upstreamTimeoutOrderProblem({
    UPSTREAM_DEADLINE_MS: config.UPSTREAM_DEADLINE_MS,
    ADAPTER_TIMEOUT_MS: config.ADAPTER_TIMEOUT_MS,
    PENDING_DEBIT_MS: pendingMs,
  });
  if (problem) throw new ConfigError([problem]);
  return pendingMs;
}
