/**
 * The exports process (main.ts): read the environment, connect, serve commands and run jobs, and shut
 * down in order. On SIGTERM a worker stops after its current page and hands its job back to the queue
 * at once; on a crash the job returns to the queue once its ack wait (30 s) has passed.
 */
import { buildSubjects } from "@rda/contracts";
import {
  assertDeadlineOrder,
  ConfigError,
  connectNats,
  createLogger,
  loadConfig,
  natsIdentity,
  onShutdown,
  openRedis,
  startObservability,
} from "@rda/service-kit";
import { exportsConfigShape } from "./config.ts";
import { type ExportSettings, type ObjectStore, startExports } from "./index.ts";

const DAY_MS = 86_400_000;

const yes = (value: string) => value === "1" || value === "true";

/**
 * An S3-compatible bucket when EXPORTS_S3_BUCKET is set; otherwise the filesystem (startExports'
 * default). The S3 client is loaded only when it is used: it is large, and a replica's start-up
 * time is how soon it can take over a dead replica's job.
 */
async function objectStoreOf(config: ExportsConfig): Promise<ObjectStore | undefined> {
  if (config.EXPORTS_S3_BUCKET === undefined) return undefined;
  const keyId = config.EXPORTS_S3_ACCESS_KEY_ID;
  const secret = config.EXPORTS_S3_SECRET_ACCESS_KEY;
  if ((keyId === undefined) !== (secret === undefined)) {
    throw new ConfigError([
      "EXPORTS_S3_ACCESS_KEY_ID and EXPORTS_S3_SECRET_ACCESS_KEY: set both, or neither for the default credential chain",
    ]);
  }
  const { s3Store } = await import("./s3-store.ts");
  return s3Store({
    bucket: config.EXPORTS_S3_BUCKET,
    prefix: config.EXPORTS_S3_PREFIX,
    endpoint: config.EXPORTS_S3_ENDPOINT,
    region: config.EXPORTS_S3_REGION,
    credentials:
      keyId === undefined || secret === undefined
        ? undefined
        : { accessKeyId: keyId, secretAccessKey: secret },
    forcePathStyle: yes(config.EXPORTS_S3_FORCE_PATH_STYLE),
    alwaysChecksum: yes(config.EXPORTS_S3_ALWAYS_CHECKSUM),
  });
}

type ExportsConfig = ReturnType<typeof loadExportsConfig>;

/** The exports service's settings; a page asked of an adapter must outlast the adapter's own upstream
 * deadline (contracts' bounds.ts). */
export function loadExportsConfig(source: Record<string, string | undefined> = process.env) {
  const config = loadConfig(exportsConfigShape, source);
  assertDeadlineOrder(config);
  return config;
}

/**
 * `overrides`: settings that are no deployment's to choose (the queue's ack wait), which a test's
 * replica process passes in code to make a crash's takeover quick.
 */
export async function serveExports(overrides: ExportSettings = {}): Promise<void> {
  const config = loadExportsConfig();
  const observability = await startObservability("exports", import.meta.url, config);
  const logger = createLogger("exports", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "exports", logger);
  const nats = await connectNats(config.NATS_URL, "exports", logger, natsIdentity(config));
  const exportsService = await startExports(
    {
      nats,
      redis,
      objects: await objectStoreOf(config),
      subjects: buildSubjects(namespace),
      namespace,
      logger,
      settings: {
        storageDir: config.EXPORTS_DIR,
        pagesPerSecond: config.EXPORTS_PAGES_PER_SECOND,
        concurrency: config.EXPORTS_CONCURRENCY,
        natsReplicas: config.NATS_REPLICAS,
        retentionMs: config.EXPORTS_RETENTION_DAYS * DAY_MS,
        balanceRetryMs: config.EXPORTS_BALANCE_RETRY_MS,
        quotesPerMinute: config.EXPORTS_QUOTES_PER_MINUTE,
        linkSecret: config.EXPORTS_LINK_SECRET,
        linkBaseUrl: config.EXPORTS_LINK_URL?.replace(/\/+$/, ""),
        adapterTimeoutMs: config.ADAPTER_TIMEOUT_MS,
        billingTimeoutMs: config.BILLING_TIMEOUT_MS,
        ...overrides,
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
}
