/**
 * The billing process: reads the environment once, starts tracing when configured, connects to NATS
 * and Redis, starts billing, its health and metrics servers, and shuts down in order (stop serving →
 * finish in-flight → drain NATS → quit Redis → export the last spans).
 */

import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  isNatsConnected,
  natsIdentity,
  onShutdown,
  openRedis,
  redisKeys,
  redisResponds,
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { startBilling } from "./index.ts";
import { billingSettingsOf, loadBillingConfig } from "./settings.ts";

runMain("billing", async () => {
  const config = loadBillingConfig();
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
    settings: billingSettingsOf(config),
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
