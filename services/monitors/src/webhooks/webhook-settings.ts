/**
 * How webhook delivery behaves, resolved once (main.ts reads the environment; tests shrink the
 * times). Defaults are production's: retries with backoff for up to 3 days.
 */
import { type AttemptOptions, DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from "@rda/webhooks";

export interface WebhookSettings extends RetrySchedule {
  /**
   * Seals receivers' signing secrets at rest (AES-256-GCM, @rda/webhooks secrets.ts). Without it a
   * monitor cannot have a webhook (create and PATCH answer 400), pull still works.
   */
  readonly sealingKey: Buffer | undefined;
  /** Local development only: receivers at http://127.0.0.1 or [::1] are allowed. */
  readonly allowLoopback: boolean;
  /** One attempt's deadline (connect, headers and body). */
  readonly attemptTimeoutMs: number;
  /** Most bytes of a receiver's answer read. */
  readonly maxResponseBytes: number;
  /** How often a monitor paused for credits asks billing again. */
  readonly creditsRetryMs: number;
  /** How long the old secret still signs after a rotation. */
  readonly secretOverlapMs: number;
  /** How long a replica holds a monitor's delivery before another may take it over. */
  readonly leaseMs: number;
  /** How often the delivery loop looks for due deliveries. */
  readonly tickMs: number;
}

const DAY_MS = 86_400_000;

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  sealingKey: undefined,
  allowLoopback: false,
  ...DEFAULT_RETRY_SCHEDULE,
  attemptTimeoutMs: 10_000,
  maxResponseBytes: 65_536,
  creditsRetryMs: 30_000,
  secretOverlapMs: DAY_MS,
  leaseMs: 60_000,
  tickMs: 1_000,
};

/** How one attempt is made (@rda/webhooks attemptOnce); a test event waits less long. */
export function attemptOptionsOf(
  settings: WebhookSettings,
  timeoutMs = settings.attemptTimeoutMs,
): AttemptOptions {
  return {
    sealingKey: settings.sealingKey,
    allowLoopback: settings.allowLoopback,
    timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
  };
}
