/**
 * The process shell shared by the four adapters: environment (validated once, a bad value exits
 * naming the variable), NATS, the adapter itself, a health server whose readiness is "NATS connected",
 * and an ordered shutdown (stop taking requests → finish in-flight → drain NATS → close health).
 */
import { buildSubjects, type Subjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  env,
  isNatsConnected,
  type Logger,
  loadConfig,
  type NatsConnection,
  onShutdown,
  runMain,
  startHealthServer,
} from "@rda/service-kit";

export interface AdapterDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly upstreamUrl: string;
  readonly logger: Logger;
  readonly upstream?: { readonly deadlineMs?: number; readonly maxRetries?: number };
}

export type StartAdapter = (deps: AdapterDeps) => Promise<{ stop(): Promise<void> }>;

function adapterEnvShape(defaultHealthPort: number) {
  return {
    NATS_URL: env.natsUrl(),
    UPSTREAM_URL: env.httpUrl().default("http://127.0.0.1:8070"),
    UPSTREAM_DEADLINE_MS: env.positiveInt(8_000),
    RDA_NAMESPACE: env.namespace(),
    HEALTH_PORT: env.port(defaultHealthPort),
    HEALTH_HOST: env.host(),
    LOG_LEVEL: env.logLevel(),
  };
}

export function runAdapterMain(service: string, defaultHealthPort: number, start: StartAdapter): void {
  runMain(service, async () => {
    const config = loadConfig(adapterEnvShape(defaultHealthPort));
    const logger = createLogger(service, { level: config.LOG_LEVEL });
    const nats = await connectNats(config.NATS_URL, service, logger);
    const adapter = await start({
      nats,
      subjects: buildSubjects(config.RDA_NAMESPACE),
      upstreamUrl: config.UPSTREAM_URL,
      logger,
      upstream: { deadlineMs: config.UPSTREAM_DEADLINE_MS },
    });
    const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
      nats: () => isNatsConnected(nats),
    });
    logger.info({ healthPort: health.port, upstream: config.UPSTREAM_URL }, "adapter ready");
    onShutdown(logger, [
      ["adapter", () => adapter.stop()],
      ["nats", () => nats.drain()],
      ["health", () => health.close()],
    ]);
  });
}
