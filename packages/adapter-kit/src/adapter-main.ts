/**
 * The process shell shared by the four adapters: environment (validated once, a bad value exits
 * naming the variable), tracing when configured, NATS, the adapter itself, a health server whose
 * readiness is "NATS connected", the metrics server, and an ordered shutdown (stop taking requests →
 * finish in-flight → drain NATS → close health and metrics → export the last spans).
 */
import { buildSubjects, DEADLINE_DEFAULTS } from "@rda/contracts";
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
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import type { StartAdapter } from "./start-adapter.ts";

function adapterEnvShape(defaultHealthPort: number, defaultMetricsPort: number) {
  return {
    NATS_URL: env.natsUrl(),
    NATS_USER: env.natsUser(),
    NATS_PASSWORD: env.natsPassword(),
    UPSTREAM_URL: env.httpUrl().default("http://127.0.0.1:8070"),
    UPSTREAM_DEADLINE_MS: env.positiveInt(DEADLINE_DEFAULTS.upstreamDeadlineMs),
    /**
     * How long the gateway waits for an adapter (the gateway's variable), read here only to check
     * that the upstream deadline ends first; set it to the gateway's value.
     */
    ADAPTER_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.adapterTimeoutMs),
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
    const identity = natsIdentity(config);
    const observability = await startObservability(service, moduleUrl, config);
    const logger = createLogger(service, { level: config.LOG_LEVEL });
    const nats = await connectNats(config.NATS_URL, service, logger, identity);
    const adapter = await start({
      nats,
      subjects: buildSubjects(config.RDA_NAMESPACE),
      upstreamUrl: config.UPSTREAM_URL,
      logger,
      upstream: { deadlineMs: config.UPSTREAM_DEADLINE_MS },
      registry: observability.registry,
    });
    const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
      nats: () => isNatsConnected(nats),
    });
    const metrics = await observability.serveMetrics();
    const ports = { healthPort: health.port, metricsPort: metrics.port };
    logger.info(
      { ...ports, upstream: config.UPSTREAM_URL, tracing: observability.tracing.enabled },
      "adapter ready",
    );
    onShutdown(logger, [
      ["adapter", () => adapter.stop()],
      ["nats", () => nats.drain()],
      ["health", () => health.close()],
      ["metrics", () => metrics.close()],
      ["export the last spans", () => observability.tracing.shutdown()],
    ]);
  });
}
