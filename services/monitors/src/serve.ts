/**
 * The monitors process (main.ts): reads the environment once, connects to NATS and Redis, starts the
 * monitors service, its health (HEALTH_PORT, default 9111) and metrics (METRICS_PORT, default 9211)
 * servers, and shuts down in order (stop serving and polling → drain NATS → quit Redis).
 */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  isNatsConnected,
  loadConfig,
  natsIdentity,
  onShutdown,
  openRedis,
  redisResponds,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { sealingKeyFrom } from "@rda/webhooks";
import { monitorsConfigShape } from "./config.ts";
import { DEFAULT_WEBHOOK_SETTINGS, type MonitorsDeps, startMonitors } from "./index.ts";

/**
 * `overrides`: settings that are no deployment's to choose (the loops' tick and lease lengths), which
 * a test's replica process passes in code to make a crash's takeover quick.
 */
export async function serveMonitors(overrides: MonitorsDeps["settings"] = {}): Promise<void> {
  const { webhooks: webhookOverrides, ...settingOverrides } = overrides;
  const config = loadConfig(monitorsConfigShape);
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
      backfillPagesPerPoll: config.MONITOR_BACKFILL_PAGES_PER_POLL,
      lookbackEveryMs: config.MONITOR_LOOKBACK_EVERY_MS,
      webhooks: {
        sealingKey: config.WEBHOOK_SEALING_KEY ? sealingKeyFrom(config.WEBHOOK_SEALING_KEY) : undefined,
        allowLoopback: ["1", "true"].includes(config.WEBHOOKS_ALLOW_LOOPBACK),
        // The retry schedule is part of what receivers are promised (docs/api.md#monitor-webhooks),
        // the same in every deployment; tests pass shorter ones to startMonitors in-process.
        retryWindowMs: DEFAULT_WEBHOOK_SETTINGS.retryWindowMs,
        firstRetryMs: DEFAULT_WEBHOOK_SETTINGS.firstRetryMs,
        maxRetryDelayMs: DEFAULT_WEBHOOK_SETTINGS.maxRetryDelayMs,
        attemptTimeoutMs: config.MONITOR_WEBHOOK_TIMEOUT_MS,
        secretOverlapMs: config.MONITOR_WEBHOOK_SECRET_OVERLAP_S * 1000,
        ...webhookOverrides,
      },
      ...settingOverrides,
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
}
