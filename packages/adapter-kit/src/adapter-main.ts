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
  connectRedis,
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
import {
  createRedisCacheStore,
  createRedisPacer,
  DEFAULT_BACKGROUND_SHARE,
  DEFAULT_FRESHNESS_BOUNDS,
  DEFAULT_USER_AGENT,
} from "@rda/upstream-client";
import { budgetMetrics } from "./adapter-metrics.ts";
import type { StartAdapter } from "./start-adapter.ts";

export function adapterEnvShape(defaultHealthPort: number, defaultMetricsPort: number) {
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
    /** The share of upstream turns monitors and exports are sure of under interactive load (0 to 1). */
    UPSTREAM_SHARE_MONITORS: env.fraction(DEFAULT_BACKGROUND_SHARE),
    UPSTREAM_SHARE_EXPORTS: env.fraction(DEFAULT_BACKGROUND_SHARE),
    /**
     * The response cache (docs/operations.md#the-response-cache): its own Redis when set (advised in
     * production: maxmemory with allkeys-lru), otherwise the adapters' Redis under CACHE_MAX_BYTES.
     */
    CACHE_REDIS_URL: env.optionalRedisUrl(),
    CACHE_FRESH_S: env.nonNegativeInt(DEFAULT_FRESHNESS_BOUNDS.freshS),
    CACHE_SETTLED_S: env.nonNegativeInt(DEFAULT_FRESHNESS_BOUNDS.settledS),
    CACHE_USER_S: env.nonNegativeInt(DEFAULT_FRESHNESS_BOUNDS.userS),
    /** Bytes of live entries, all together; 0 stores nothing (identical calls still coalesce). */
    CACHE_MAX_BYTES: env.nonNegativeInt(64 * 1024 * 1024),
    CACHE_MAX_ENTRY_BYTES: env.positiveInt(2 * 1024 * 1024),
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
    // A cache of its own is not waited for: while it is down, requests are fetched uncached.
    const cacheRedis = config.CACHE_REDIS_URL
      ? connectRedis(config.CACHE_REDIS_URL, `${service}-cache`, logger)
      : redis;
    if (cacheRedis !== redis) cacheRedis.connect().catch(() => {});
    const keys = redisKeys(config.RDA_NAMESPACE);
    const bounds = {
      freshS: config.CACHE_FRESH_S,
      settledS: config.CACHE_SETTLED_S,
      userS: config.CACHE_USER_S,
    };
    const cacheStore = createRedisCacheStore(cacheRedis, keys.upstreamCache, {
      maxBytes: config.CACHE_MAX_BYTES,
      maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
      longestTtlS: Math.max(bounds.freshS, bounds.settledS, bounds.userS),
    });
    const backgroundShares = {
      monitors: config.UPSTREAM_SHARE_MONITORS,
      exports: config.UPSTREAM_SHARE_EXPORTS,
    };
    const budget = budgetMetrics(observability.registry, service, backgroundShares);
    const pacer = createRedisPacer(
      redis,
      keys.upstreamPacer,
      {
        requestsPerSecond: config.UPSTREAM_REQUESTS_PER_SECOND,
        concurrency: config.UPSTREAM_CONCURRENCY,
        backgroundShares,
        onGranted: budget.granted,
      },
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
      cache: { store: cacheStore, bounds },
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
      [
        "quit the cache's Redis",
        // A cache of its own may be down: then there is nothing to quit.
        async () => {
          if (cacheRedis !== redis) await cacheRedis.quit().catch(() => cacheRedis.disconnect());
        },
      ],
      ["health", () => health.close()],
      ["metrics", () => metrics.close()],
      ["export the last spans", () => observability.tracing.shutdown()],
    ]);
  });
}
