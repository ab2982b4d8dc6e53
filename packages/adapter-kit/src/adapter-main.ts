/**
 * The process shell shared by the four adapters: environment (validated once, a bad value exits
 * naming the variable, and time bounds out of order refused), tracing when configured, NATS, Redis
 * for the product's shared upstream pacer, the adapter itself, a health server whose readiness is
 * "NATS connected", the metrics server, and an ordered shutdown (stop taking requests → finish
 * in-flight → drain NATS → quit Redis → close health and metrics → export the last spans).
 */
import { buildSubjects, DEADLINE_DEFAULTS, UPSTREAM_BUDGET_DEFAULTS } from "@rda/contracts";
import {
  assertDeadlineOrder,
  connectNats,
  createLogger,
  env,
  isNatsConnected,
  loadConfig,
  natsIdentity,
  observabilityEnv,
  onShutdown,
  openRedis,
  redisKeys,
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { createRedisPacer, DEFAULT_USER_AGENT } from "@rda/upstream-client";
import type { StartAdapter } from "./start-adapter.ts";

function adapterEnvShape(defaultHealthPort: number, defaultMetricsPort: number) {
  return {
    NATS_URL: env.natsUrl(),
    NATS_USER: env.natsUser(),
    NATS_PASSWORD: env.natsPassword(),
    UPSTREAM_URL: env.httpUrl().default("http://127.0.0.1:8070"),
    /** The pacer's shared state (docs/upstream.md#rate-limits); the adapters' own Redis user. */
    REDIS_URL: env.redisUrl(),
    /** One HTTP attempt: heavy queries take seconds upstream. */
    UPSTREAM_ATTEMPT_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.upstreamAttemptMs),
    UPSTREAM_DEADLINE_MS: env.positiveInt(DEADLINE_DEFAULTS.upstreamDeadlineMs),
    /**
     * How long the gateway waits for an adapter (the gateway's variable), read here only to check
     * that the upstream deadline ends first; set it to the gateway's value.
     */
    ADAPTER_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.adapterTimeoutMs),
    UPSTREAM_REQUESTS_PER_SECOND: env.positiveNumber(UPSTREAM_BUDGET_DEFAULTS.requestsPerSecond),
    UPSTREAM_CONCURRENCY: env.positiveInt(UPSTREAM_BUDGET_DEFAULTS.concurrency),
    /** docs/operations.md#environment: the product and the operator's contact, sent on every upstream call. */
    UPSTREAM_USER_AGENT: env.headerText(),
    RDA_NAMESPACE: env.namespace(),
    HEALTH_PORT: env.port(defaultHealthPort),
    HEALTH_HOST: env.host(),
    LOG_LEVEL: env.logLevel(),
    ...observabilityEnv(defaultMetricsPort),
  };
}

/** The adapter's environment, validated and checked against the bounds it shares with the gateway. */
export function loadAdapterConfig(
  defaultPorts: { readonly health: number; readonly metrics: number },
  source: Record<string, string | undefined> = process.env,
) {
  const config = loadConfig(adapterEnvShape(defaultPorts.health, defaultPorts.metrics), source);
  assertDeadlineOrder(config);
  return config;
}

/**
 * `defaultPorts`: the adapter's health port and metrics port (HEALTH_PORT and METRICS_PORT when
 * unset); `moduleUrl`: its main module, whose package.json gives the version in the build info.
 */
export function runAdapterMain(
  service: string,
  defaultPorts: { readonly health: number; readonly metrics: number },
  moduleUrl: string,
  start: StartAdapter,
): void {
  runMain(service, async () => {
    const config = loadAdapterConfig(defaultPorts);
    const attemptTimeoutMs = config.UPSTREAM_ATTEMPT_TIMEOUT_MS;
    const identity = natsIdentity(config);
    const observability = await startObservability(service, moduleUrl, config);
    const logger = createLogger(service, { level: config.LOG_LEVEL });
    const nats = await connectNats(config.NATS_URL, service, logger, identity);
    const redis = await openRedis(config.REDIS_URL, service, logger);
    const pacer = createRedisPacer(
      redis,
      redisKeys(config.RDA_NAMESPACE).upstreamPacer,
      { requestsPerSecond: config.UPSTREAM_REQUESTS_PER_SECOND, concurrency: config.UPSTREAM_CONCURRENCY },
      logger,
    );
    const adapter = await start({
      nats,
      subjects: buildSubjects(config.RDA_NAMESPACE),
      upstreamUrl: config.UPSTREAM_URL,
      logger,
      upstream: {
        deadlineMs: config.UPSTREAM_DEADLINE_MS,
        attemptTimeoutMs,
        userAgent: config.UPSTREAM_USER_AGENT,
      },
      pacer,
      registry: observability.registry,
    });
    const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
      nats: () => isNatsConnected(nats),
    });
    const metrics = await observability.serveMetrics();
    const ports = { healthPort: health.port, metricsPort: metrics.port };
    // A local simulator needs no contact; a real upstream should be told whom to ask about the traffic.
    const local = /^(localhost|127\.|\[::1\]$)/.test(new URL(config.UPSTREAM_URL).hostname);
    if (config.UPSTREAM_USER_AGENT === undefined && !local) {
      logger.warn(
        { userAgent: DEFAULT_USER_AGENT },
        "UPSTREAM_USER_AGENT is not set: the upstream is not told whom to contact about this traffic",
      );
    }
    logger.info(
      { ...ports, upstream: config.UPSTREAM_URL, tracing: observability.tracing.enabled },
      "adapter ready",
    );
    onShutdown(logger, [
      ["adapter", () => adapter.stop()],
      ["nats", () => nats.drain()],
      ["quit Redis", () => redis.quit()],
      ["health", () => health.close()],
      ["metrics", () => metrics.close()],
      ["export the last spans", () => observability.tracing.shutdown()],
    ]);
  });
}
