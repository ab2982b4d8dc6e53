/** The monitors service's environment (docs/settings.md), validated once at start by serve.ts. */
import { env, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";
import { DEFAULT_MONITOR_LIMITS, DEFAULT_MONITOR_SETTINGS, DEFAULT_WEBHOOK_SETTINGS } from "./index.ts";

const hooks = DEFAULT_WEBHOOK_SETTINGS;

export const monitorsConfigShape = {
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  /** Monitors one account may hold across its keys (docs/api.md#monitors). */
  MONITORS_PER_ACCOUNT: env.positiveInt(DEFAULT_MONITOR_LIMITS.maxMonitorsPerAccount),
  /** The shortest interval a monitor may ask for, in seconds. Lower only for development. */
  MONITOR_MIN_INTERVAL_SECONDS: env.positiveInt(DEFAULT_MONITOR_LIMITS.minIntervalSeconds),
  /** Backfill pages one monitor may take per poll (fairness between long windows and the rest). */
  MONITOR_BACKFILL_PAGES_PER_POLL: env.positiveInt(DEFAULT_MONITOR_SETTINGS.backfillPagesPerPoll),
  /**
   * How often a followed source's newest page is read again for items the archive ingested late
   * (one page per source; 0: never).
   */
  MONITOR_LOOKBACK_EVERY_MS: env.nonNegativeInt(DEFAULT_MONITOR_SETTINGS.lookbackEveryMs),
  /**
   * 32 bytes (base64, or 64 hex digits) sealing monitors' webhook secrets at rest (AES-256-GCM).
   * Unset: monitors cannot have a webhook_url (pull still works).
   */
  WEBHOOK_SEALING_KEY: z
    .string()
    .refine((text) => (/^[0-9a-f]{64}$/i.test(text) ? true : Buffer.from(text, "base64").length === 32), {
      error: "must be 32 bytes as base64 or 64 hex digits (openssl rand -base64 32)",
    })
    .optional(),
  /** Local development only: webhooks may go to http://127.0.0.1 (logged loudly at start). */
  WEBHOOKS_ALLOW_LOOPBACK: z.enum(["0", "1", "true", "false"]).default("0"),
  /** One attempt's deadline. */
  MONITOR_WEBHOOK_TIMEOUT_MS: env.positiveInt(hooks.attemptTimeoutMs),
  /** How long a rotated secret still signs beside the new one. */
  MONITOR_WEBHOOK_SECRET_OVERLAP_S: env.positiveInt(hooks.secretOverlapMs / 1000),
  HEALTH_PORT: env.port(9111),
  HEALTH_HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  ...observabilityEnv(9211),
};
