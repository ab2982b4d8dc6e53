/** The gateway process: read the environment, connect, listen, and shut down in order. */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  connectRedis,
  createLogger,
  natsIdentity,
  onShutdown,
  openRedis,
  redisKeys,
  runMain,
  startObservability,
} from "@rda/service-kit";
import { createMetrics } from "./core/metrics.ts";
import { gatewaySettingsOf, loadGatewayConfig } from "./wiring/config.ts";
import { startGateway } from "./wiring/start.ts";

runMain("gateway", async () => {
  const config = loadGatewayConfig();
  const identity = natsIdentity(config);
  const observability = await startObservability("gateway", import.meta.url, config);
  const logger = createLogger("gateway", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "gateway", logger, {
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  // The adapters' cache of its own is not waited for: while it is down, every answer is a miss.
  const cacheRedis = config.CACHE_REDIS_URL
    ? connectRedis(config.CACHE_REDIS_URL, "gateway-cache", logger, {
        commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
      })
    : redis;
  if (cacheRedis !== redis) cacheRedis.connect().catch(() => {});
  const nats = await connectNats(config.NATS_URL, "gateway", logger, identity);
  const gateway = await startGateway(
    {
      redis,
      cacheRedis,
      nats,
      logger,
      subjects: buildSubjects(namespace),
      keys: redisKeys(namespace),
      metrics: createMetrics({ registry: observability.registry }),
      settings: gatewaySettingsOf(config),
    },
    {
      port: config.PORT,
      host: config.HOST,
      internalPort: config.GATEWAY_INTERNAL_PORT,
      internalHost: config.GATEWAY_INTERNAL_HOST ?? config.HOST,
    },
  );
  if (!config.GATEWAY_INTERNAL_SECRET) {
    logger.warn(
      "GATEWAY_INTERNAL_SECRET is unset: a random one is used, so OAuth callers' tool calls work only while this one gateway serves them (set it on every replica)",
    );
  }
  if (!config.PORTAL_GATEWAY_SECRET) {
    logger.warn(
      "PORTAL_GATEWAY_SECRET is unset: the developer portal's monitor and export pages are refused (set the portal's value here)",
    );
  }
  const metrics = await observability.serveMetrics();
  logger.info(
    {
      url: gateway.url,
      internalUrl: gateway.internalUrl,
      metricsPort: metrics.port,
      tracing: observability.tracing.enabled,
    },
    "gateway listening",
  );
  onShutdown(logger, [
    ["stop accepting and finish in-flight requests", () => gateway.stop()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    [
      "quit the cache's Redis",
      async () => {
        if (cacheRedis !== redis) await cacheRedis.quit().catch(() => cacheRedis.disconnect());
      },
    ],
    ["close the metrics server", () => metrics.close()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
