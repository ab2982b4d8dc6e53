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
import { sealingKeyFrom } from "@rda/webhooks";
import { z } from "zod";
import {
  DEFAULT_MONITOR_LIMITS,
  DEFAULT_MONITOR_SETTINGS,
  DEFAULT_WEBHOOK_SETTINGS,
  startMonitors,
} from "./index.ts";

const hooks = DEFAULT_WEBHOOK_SETTINGS;

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
  /**
   * How often a followed source's newest page is read again for items the archive ingested late
   * (one page per source; 0: never).
   */
  MONITOR_LOOKBACK_EVERY_MS: env.nonNegativeInt(DEFAULT_MONITOR_SETTINGS.lookbackEveryMs),
  /** How long a replica holds a source while polling it before another may take it over. */
  MONITOR_LEASE_MS: env.positiveInt(DEFAULT_MONITOR_SETTINGS.leaseMs),
  /**
   * 32 bytes (base64, or 64 hex digits) sealing monitors' webhook secrets at rest (AES-256-GCM).
   * Unset: monitors cannot have a webhook_url (pull still works).
   */
  MONITOR_WEBHOOK_SEALING_KEY: z
    .string()
    .refine((text) => (/^[0-9a-f]{64}$/i.test(text) ? true : Buffer.from(text, "base64").length === 32), {
      error: "must be 32 bytes as base64 or 64 hex digits (openssl rand -base64 32)",
    })
    .optional(),
  /** Local development only: webhooks may go to http://127.0.0.1 (logged loudly at start). */
  WEBHOOKS_ALLOW_LOOPBACK: z.enum(["0", "1", "true", "false"]).default("0"),
  /** How long a webhook batch is retried before it fails for good and the monitor pauses. */
  MONITOR_WEBHOOK_RETRY_WINDOW_S: env.positiveInt(hooks.retryWindowMs / 1000),
  /** The first pause between attempts (doubled each time, with jitter, up to the next setting). */
  MONITOR_WEBHOOK_FIRST_RETRY_MS: env.positiveInt(hooks.firstRetryMs),
  MONITOR_WEBHOOK_MAX_RETRY_DELAY_MS: env.positiveInt(hooks.maxRetryDelayMs),
  /** One attempt's deadline. */
  MONITOR_WEBHOOK_TIMEOUT_MS: env.positiveInt(hooks.attemptTimeoutMs),
  /** How long a rotated secret still signs beside the new one. */
  MONITOR_WEBHOOK_SECRET_OVERLAP_S: env.positiveInt(hooks.secretOverlapMs / 1000),
  /** How long a replica holds a monitor's deliveries; another takes over once it runs out. */
  MONITOR_WEBHOOK_LEASE_MS: env.positiveInt(hooks.leaseMs),
  /** How often a replica looks for due webhook deliveries. */
  MONITOR_WEBHOOK_TICK_MS: env.positiveInt(hooks.tickMs),
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
      lookbackEveryMs: config.MONITOR_LOOKBACK_EVERY_MS,
      webhooks: {
        sealingKey: config.MONITOR_WEBHOOK_SEALING_KEY
          ? sealingKeyFrom(config.MONITOR_WEBHOOK_SEALING_KEY)
          : undefined,
        allowLoopback: ["1", "true"].includes(config.WEBHOOKS_ALLOW_LOOPBACK),
        retryWindowMs: config.MONITOR_WEBHOOK_RETRY_WINDOW_S * 1000,
        firstRetryMs: config.MONITOR_WEBHOOK_FIRST_RETRY_MS,
        maxRetryDelayMs: config.MONITOR_WEBHOOK_MAX_RETRY_DELAY_MS,
        attemptTimeoutMs: config.MONITOR_WEBHOOK_TIMEOUT_MS,
        secretOverlapMs: config.MONITOR_WEBHOOK_SECRET_OVERLAP_S * 1000,
        leaseMs: config.MONITOR_WEBHOOK_LEASE_MS,
        tickMs: config.MONITOR_WEBHOOK_TICK_MS,
      },
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
