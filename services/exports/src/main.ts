/**
 * The exports process: read the environment, connect, serve commands and run jobs, and shut down in
 * order. On SIGTERM a worker stops after its current page and hands its job back to the queue at
 * once; on a crash the job returns to the queue after EXPORTS_ACK_WAIT_MS.
 */
import { buildSubjects, DEADLINE_DEFAULTS } from "@rda/contracts";
import {
  assertDeadlineOrder,
  ConfigError,
  connectNats,
  createLogger,
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
import { DEFAULT_QUOTES_PER_MINUTE, type ObjectStore, startExports } from "./index.ts";

const DAY_MS = 86_400_000;

const exportsConfigShape = {
  /** The internal download listener (signed links only) and health: never routed publicly. */
  EXPORTS_PORT: env.port(9110),
  HOST: env.host(),
  /** The filesystem object store: a directory every replica shares (a volume). */
  EXPORTS_DIR: z.string().min(1).default("data/exports"),
  /** Set: files go to this S3-compatible bucket instead of EXPORTS_DIR (s3-store.ts). */
  EXPORTS_S3_BUCKET: z.string().min(3).max(63).optional(),
  /** Keys start with this, e.g. `exports/`. */
  EXPORTS_S3_PREFIX: z
    .string()
    .regex(/^([^/]+\/)*$/, { error: "must be empty or end with /, as exports/" })
    .optional(),
  /** An S3-compatible server (MinIO, Ceph, R2, …); unset for AWS S3. */
  EXPORTS_S3_ENDPOINT: env.httpUrl().optional(),
  EXPORTS_S3_REGION: z.string().min(1).default("us-east-1"),
  /** Both or neither; neither: the SDK's default credential chain (a pod or instance role). */
  EXPORTS_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  EXPORTS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `1`: path-style URLs (endpoint/bucket/key), which most S3-compatible servers need. */
  EXPORTS_S3_FORCE_PATH_STYLE: z.enum(["0", "1", "true", "false"]).default("0"),
  /** `1`: send and check the SDK's default checksums on every request (AWS S3 takes them). */
  EXPORTS_S3_ALWAYS_CHECKSUM: z.enum(["0", "1", "true", "false"]).default("0"),
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
  /** Quotes one key may ask a minute: each reads the archive (two upstream calls). */
  EXPORTS_QUOTES_PER_MINUTE: env.positiveInt(DEFAULT_QUOTES_PER_MINUTE),
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

type ExportsConfig = ReturnType<typeof loadConfig<typeof exportsConfigShape>>;

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
      objects: await objectStoreOf(config),
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
        quotesPerMinute: config.EXPORTS_QUOTES_PER_MINUTE,
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
