/**
 * The monitors process: reads the environment once, connects to NATS and Redis, starts the monitors
 * service, its health (HEALTH_PORT, default 9111) and metrics (METRICS_PORT, default 9211) servers,
 * and shuts down in order (stop serving and polling → drain NATS → quit Redis).
 */
import { buildSubjects } from "@rda/contracts";
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
  redisResponds,
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { DEFAULT_MONITOR_LIMITS, DEFAULT_MONITOR_SETTINGS, startMonitors } from "./index.ts";

const configShape = {
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  /** Monitors one account may hold across its keys (docs/api.md#monitors). */
  MONITORS_PER_ACCOUNT: env.positiveInt(DEFAULT_MONITOR_LIMITS.maxMonitorsPerAccount),
  /** The shortest interval a monitor may ask for, in seconds. Lower only for development. */
  MONITOR_MIN_INTERVAL_SECONDS: env.positiveInt(DEFAULT_MONITOR_LIMITS.minIntervalSeconds),
  /** How often a replica looks for due sources. */
  MONITOR_TICK_MS: env.positiveInt(DEFAULT_MONITOR_SETTINGS.tickMs),
  /** Backfill pages one monitor may take per poll (fairness between long windows and the rest). */
  MONITOR_BACKFILL_PAGES_PER_POLL: env.positiveInt(DEFAULT_MONITOR_SETTINGS.backfillPagesPerPoll),
  /** How long a replica holds a source while polling it before another may take it over. */
  MONITOR_LEASE_MS: env.positiveInt(DEFAULT_MONITOR_SETTINGS.leaseMs),
  HEALTH_PORT: env.port(9111),
  HEALTH_HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  ...observabilityEnv(9211),
};

runMain("monitors", async () => {
  const config = loadConfig(configShape);
  const observability = await startObservability("monitors", import.meta.url, config);
  const logger = createLogger("monitors", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "monitors", logger);
  const nats = await connectNats(config.NATS_URL, "monitors", logger, natsIdentity(config));
  const monitors = await startMonitors({
    nats,
    redis,
    namespace,
    subjects: buildSubjects(namespace),
    logger,
    registry: observability.registry,
    settings: {
      limits: {
        maxMonitorsPerAccount: config.MONITORS_PER_ACCOUNT,
        minIntervalSeconds: config.MONITOR_MIN_INTERVAL_SECONDS,
      },
      tickMs: config.MONITOR_TICK_MS,
      leaseMs: config.MONITOR_LEASE_MS,
      backfillPagesPerPoll: config.MONITOR_BACKFILL_PAGES_PER_POLL,
    },
  });
  const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
    nats: () => isNatsConnected(nats),
    redis: () => redisResponds(redis),
  });
  const metrics = await observability.serveMetrics();
  logger.info({ healthPort: health.port, metricsPort: metrics.port, namespace }, "monitors ready");
  onShutdown(logger, [
    ["stop serving and polling", () => monitors.stop()],
    ["close health server", () => health.close()],
    ["close metrics server", () => metrics.close()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
