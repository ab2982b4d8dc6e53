/**
 * The billing process: reads the environment once, starts tracing when configured, connects to NATS
 * and Redis, starts billing, its health and metrics servers, and shuts down in order (stop serving →
 * finish in-flight → drain NATS → quit Redis → export the last spans).
 */

import { buildSubjects, UPSTREAM_BUDGET_DEFAULTS, WEBHOOK_SECRET_PATTERN } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  env,
  isNatsConnected,
  loadConfig,
  natsIdentity,
  observabilityEnv,
  onShutdown,
  openRedis,
  REDIS_COMMAND_TIMEOUT_MS,
  redisKeys,
  redisResponds,
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { z } from "zod";
import { startBilling } from "./index.ts";

const configShape = {
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  FREE_CREDITS: env.nonNegativeInt(333),
  RATE_LIMIT_QPS: env.positiveInt(2),
  RATE_LIMIT_BURST: env.positiveInt(10),
  /**
   * The shared upstream reserve: data requests admitted per second for every customer together, sized
   * to what the upstream can serve us (docs/upstream.md#rate-limits).
   */
  UPSTREAM_RESERVE_QPS: env.positiveInt(UPSTREAM_BUDGET_DEFAULTS.reserveQps),
  UPSTREAM_RESERVE_BURST: env.positiveInt(UPSTREAM_BUDGET_DEFAULTS.reserveBurst),
  PENDING_SWEEP_MS: env.positiveInt(1_000),
  /** A Redis command without an answer by then fails; billing's hot path then answers 503. */
  REDIS_COMMAND_TIMEOUT_MS: env.positiveInt(REDIS_COMMAND_TIMEOUT_MS),
  ACCOUNT_MAX_ACTIVE_KEYS: env.positiveInt(10),
  ACCOUNT_MAX_KEYS_CREATED: env.positiveInt(25),
  REFUND_STREAM_REPLICAS: z.coerce
    .number({ error: "must be 1, 3 or 5" })
    .refine((n) => [1, 3, 5].includes(n), { error: "must be 1, 3 or 5" })
    .default(1),
  /**
   * Stripe's webhook signing secret, the same one the portal holds. With it, billing applies a card
   * payment only with the event Stripe signed (src/payment-evidence.ts).
   */
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(WEBHOOK_SECRET_PATTERN, { error: "must be a webhook signing secret, whsec_…" })
    .optional(),
  HEALTH_PORT: env.port(9101),
  HEALTH_HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  ...observabilityEnv(9201),
};

runMain("billing", async () => {
  const config = loadConfig(configShape);
  const identity = natsIdentity(config);
  const observability = await startObservability("billing", import.meta.url, config);
  const logger = createLogger("billing", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "billing", logger, {
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const nats = await connectNats(config.NATS_URL, "billing", logger, identity);
  const billing = await startBilling({
    nats,
    redis,
    subjects: buildSubjects(namespace),
    keys: redisKeys(namespace),
    logger,
    registry: observability.registry,
    settings: {
      freeCredits: config.FREE_CREDITS,
      defaultRateLimit: { qps: config.RATE_LIMIT_QPS, burst: config.RATE_LIMIT_BURST },
      maxActiveKeysPerAccount: config.ACCOUNT_MAX_ACTIVE_KEYS,
      maxKeysCreatedPerAccount: config.ACCOUNT_MAX_KEYS_CREATED,
      reserve: { qps: config.UPSTREAM_RESERVE_QPS, burst: config.UPSTREAM_RESERVE_BURST },
      pendingSweepMs: config.PENDING_SWEEP_MS,
      storeTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
      refundStreamReplicas: config.REFUND_STREAM_REPLICAS,
      stripeWebhookSecret: config.STRIPE_WEBHOOK_SECRET,
    },
  });
  const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
    nats: () => isNatsConnected(nats),
    redis: () => redisResponds(redis),
  });
  const metrics = await observability.serveMetrics();
  const ports = { healthPort: health.port, metricsPort: metrics.port };
  const paymentsProof = config.STRIPE_WEBHOOK_SECRET ? "stripe signature" : "the portal's word";
  logger.info(
    { ...ports, namespace, tracing: observability.tracing.enabled, payments_proven_by: paymentsProof },
    "billing ready",
  );
  onShutdown(logger, [
    ["stop serving and finish in-flight work", () => billing.stop()],
    ["close health server", () => health.close()],
    ["close metrics server", () => metrics.close()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
