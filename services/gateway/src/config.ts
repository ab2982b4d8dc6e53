/**
 * The gateway's environment, validated once at start (DESIGN.md's variables plus architecture.md's).
 */
import { env } from "@rda/service-kit";
import type { z } from "zod";

export const gatewayConfigShape = {
  PORT: env.port(8080),
  HOST: env.host(),
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  RDA_NAMESPACE: env.namespace(),
  /**
   * The shared upstream reserve. The upstream allows "a couple requests per second" per client and
   * about 2000/min at most (upstream.md §1.6); one adapter call can retry, so 20/s sustained with a
   * burst of 40 keeps us under ~1200 upstream calls/min with headroom for retries.
   */
  UPSTREAM_RESERVE_QPS: env.positiveInt(20),
  UPSTREAM_RESERVE_BURST: env.positiveInt(40),
  TOPUP_URL: env.httpUrl().default("https://example.com/topup"),
  ADAPTER_TIMEOUT_MS: env.positiveInt(10_000),
  /** Billing answers from Redis; anything slower than this is an outage, answered 503. */
  BILLING_TIMEOUT_MS: env.positiveInt(2_000),
  MCP_URL: env.httpUrl().default("http://127.0.0.1:8090"),
  LOG_LEVEL: env.logLevel(),
} as const;

export type GatewayConfig = Readonly<z.output<z.ZodObject<typeof gatewayConfigShape>>>;
