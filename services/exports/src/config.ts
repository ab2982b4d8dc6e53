/** The exports service's environment (docs/settings.md), validated once at start by serve.ts. */
import { DEADLINE_DEFAULTS } from "@rda/contracts";
import { env, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";
import { DEFAULT_QUOTES_PER_MINUTE } from "./index.ts";

export const exportsConfigShape = {
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
  NATS_REPLICAS: env.natsReplicas(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  LOG_LEVEL: env.logLevel(),
  /** Prometheus metrics on their own internal port. */
  ...observabilityEnv(9210),
} as const;
