/**
 * The exports process: read the environment, connect, serve commands and run jobs, and shut down in
 * order. On SIGTERM a worker stops after its current page and hands its job back to the queue at
 * once; on a crash the job returns to the queue after EXPORTS_ACK_WAIT_MS.
 */
import { buildSubjects, DEADLINE_DEFAULTS } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  assertDeadlineOrder,
  env,
  loadConfig,
  natsIdentity,
  observabilityEnv,
  onShutdown,
  openRedis,
  runMain,
  startObservability,
} from "@rda/service-kit";
import { z } from "zod";
import { startExports } from "./index.ts";

const DAY_MS = 86_400_000;

const exportsConfigShape = {
  /** The internal download listener (signed links only) and health: never routed publicly. */
  EXPORTS_PORT: env.port(9110),
  HOST: env.host(),
  /** The filesystem object store: a directory every replica shares (a volume). */
  EXPORTS_DIR: z.string().min(1).default("data/exports"),
  /** The export share of the upstream budget, per job, in pages per second. */
  EXPORTS_PAGES_PER_SECOND: env.positiveInt(2),
  /** Jobs one replica runs at once. */
  EXPORTS_CONCURRENCY: env.positiveInt(2),
  /** A job whose worker stopped answering returns to the queue after this. */
  EXPORTS_ACK_WAIT_MS: env.positiveInt(30_000),
  /** How long a finished export's file is kept. */
  EXPORTS_RETENTION_DAYS: env.positiveInt(7),
  /** How soon a job paused at a zero balance looks for credits again. */
  EXPORTS_BALANCE_RETRY_MS: env.positiveInt(30_000),
  /**
   * Signs download links; every replica behind EXPORTS_LINK_URL needs the same. Unset: a random one
   * per process, which works only while one replica serves the links.
   */
  EXPORTS_LINK_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
  /** Where the gateway reaches this service's download listener; default http://127.0.0.1:EXPORTS_PORT. */
  EXPORTS_LINK_URL: env.httpUrl().optional(),
  /** The wait for an adapter's page: longer than the adapters' UPSTREAM_DEADLINE_MS (checked at start). */
  ADAPTER_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.adapterTimeoutMs),
  /**
   * The adapters' upstream deadline, read here only to check it against ADAPTER_TIMEOUT_MS; set it
   * to the value the adapters run with.
   */
  UPSTREAM_DEADLINE_MS: env.positiveInt(DEADLINE_DEFAULTS.upstreamDeadlineMs),
  BILLING_TIMEOUT_MS: env.positiveInt(5_000),
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  LOG_LEVEL: env.logLevel(),
  /** Prometheus metrics on their own internal port. */
  ...observabilityEnv(9210),
} as const;

runMain("exports", async () => {
  const config = loadConfig(exportsConfigShape);
  // A page asked of an adapter must outlast the adapter's own upstream deadline (contracts' bounds.ts).
  assertDeadlineOrder(config);
  const observability = await startObservability("exports", import.meta.url, config);
  const logger = createLogger("exports", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "exports", logger);
  const nats = await connectNats(config.NATS_URL, "exports", logger, natsIdentity(config));
  const exportsService = await startExports(
    {
      nats,
      redis,
      subjects: buildSubjects(namespace),
      namespace,
      logger,
      settings: {
        storageDir: config.EXPORTS_DIR,
        pagesPerSecond: config.EXPORTS_PAGES_PER_SECOND,
        concurrency: config.EXPORTS_CONCURRENCY,
        ackWaitMs: config.EXPORTS_ACK_WAIT_MS,
        retentionMs: config.EXPORTS_RETENTION_DAYS * DAY_MS,
        balanceRetryMs: config.EXPORTS_BALANCE_RETRY_MS,
        linkSecret: config.EXPORTS_LINK_SECRET,
        linkBaseUrl: config.EXPORTS_LINK_URL?.replace(/\/+$/, ""),
        adapterTimeoutMs: config.ADAPTER_TIMEOUT_MS,
        billingTimeoutMs: config.BILLING_TIMEOUT_MS,
      },
    },
    { port: config.EXPORTS_PORT, host: config.HOST },
  );
  const metrics = await observability.serveMetrics();
  logger.info({ url: exportsService.url, metricsPort: metrics.port }, "exports listening");
  if (!config.EXPORTS_LINK_SECRET) {
    logger.warn("EXPORTS_LINK_SECRET is unset: download links work only while this one replica serves them");
  }
  onShutdown(logger, [
    ["finish the current pages and hand the jobs back", () => exportsService.stop()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    ["close the metrics server", () => metrics.close()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
