/**
 * What one delivery attempt records, and when the next one is due: the retry schedule every webhook
 * of ours keeps (monitors' batches and accounts' notices alike, docs/api.md#monitor-webhooks): the
 * pause doubles per failed attempt up to a cap, with jitter, and a delivery is retried until the
 * retry window (3 days from its round's start) is over.
 */
import { deliverWebhook, type WebhookMessage, type WebhookTarget } from "./delivery.ts";
import { openSecret } from "./secrets.ts";

export interface DeliveryAttempt {
  /** Epoch ms the attempt started. */
  readonly at: number;
  readonly round: number;
  /** The receiver's HTTP status; null when it never answered (refused, timed out, reset). */
  readonly status: number | null;
  readonly latency_ms: number;
  /** Why it did not count as delivered; null on a 2xx. */
  readonly error: string | null;
}

export interface RetrySchedule {
  /** How long a delivery is retried, from its round's first attempt, before it fails for good. */
  readonly retryWindowMs: number;
  /** The pause after the first failed attempt; doubled each time, with jitter. */
  readonly firstRetryMs: number;
  /** The longest pause between two attempts. */
  readonly maxRetryDelayMs: number;
}

const DAY_MS = 86_400_000;

/** Production's schedule, promised to receivers: retries with backoff for up to 3 days. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  retryWindowMs: 3 * DAY_MS,
  firstRetryMs: 10_000,
  maxRetryDelayMs: 3_600_000,
};

/** How long a delivery stays in its endpoint's log. */
export const DELIVERY_LOG_MS = 30 * DAY_MS;

/** Attempts kept per delivery, the newest. */
const MAX_ATTEMPTS_KEPT = 50;

export function withAttemptKept<T extends { readonly attempts: readonly DeliveryAttempt[] }>(
  record: T,
  attempt: DeliveryAttempt,
): T {
  return { ...record, attempts: [...record.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT) };
}

/**
 * The pause before the next attempt: doubled per failed attempt of the round, capped, and then a
 * random part of it (between half and all), so many receivers failing together do not retry in step.
 */
export function retryDelayMs(
  failedAttempts: number,
  schedule: Pick<RetrySchedule, "firstRetryMs" | "maxRetryDelayMs">,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 30);
  const full = Math.min(schedule.maxRetryDelayMs, schedule.firstRetryMs * 2 ** exponent);
  return Math.round(full / 2 + (full / 2) * random());
}

/**
 * When a round that just failed its `failedAttempts`-th attempt is tried next, or undefined when
 * that would be past its retry window (the round failed for good).
 */
export function nextAttemptAt(
  roundStartedAt: number,
  failedAttempts: number,
  schedule: RetrySchedule,
  now: number,
): number | undefined {
  const at = now + retryDelayMs(failedAttempts, schedule);
  return at - roundStartedAt <= schedule.retryWindowMs ? at : undefined;
}

/** An endpoint's signing secrets as kept: sealed, with the one before a rotation and its end. */
export interface SealedSecrets {
  readonly secret: string;
  readonly previous_secret: string | null;
  /** Epoch ms until which the previous secret still signs. */
  readonly previous_until: number;
}

/**
 * The secrets that sign now, newest first, opened from their sealed form; undefined when the
 * current one cannot be opened (it was sealed under another WEBHOOK_SEALING_KEY).
 */
export function signingSecrets(sealed: SealedSecrets, sealingKey: Buffer, now: number): string[] | undefined {
  const open = (text: string) => {
    try {
      return openSecret(sealingKey, text);
    } catch {
      return undefined;
    }
  };
  const current = open(sealed.secret);
  if (current === undefined) return undefined;
  const previous =
    sealed.previous_secret !== null && sealed.previous_until > now ? open(sealed.previous_secret) : undefined;
  return previous === undefined ? [current] : [current, previous];
}

const SECRET_UNREADABLE =
  "the signing secret cannot be read (the sealing key changed): rotate the secret or set the webhook URL again";

export interface AttemptOptions {
  /** Undefined: webhooks are not enabled on this deployment (no WEBHOOK_SEALING_KEY). */
  readonly sealingKey: Buffer | undefined;
  readonly allowLoopback: boolean;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/**
 * One attempt of one round, signed with the endpoint's secrets (both while a rotation overlaps),
 * through deliverWebhook's address guard; what happened, as the delivery log keeps it.
 */
export async function attemptOnce(
  endpoint: SealedSecrets & { readonly url: string },
  message: WebhookMessage,
  round: number,
  options: AttemptOptions,
): Promise<DeliveryAttempt> {
  const at = Date.now();
  const unsent = (error: string) => ({ at, round, status: null, latency_ms: 0, error });
  if (options.sealingKey === undefined) return unsent("webhooks are not enabled on this deployment");
  const secrets = signingSecrets(endpoint, options.sealingKey, at);
  if (secrets === undefined) return unsent(SECRET_UNREADABLE);
  const target: WebhookTarget = { url: endpoint.url, secret: secrets };
  const started = performance.now();
  const result = await deliverWebhook(target, message, {
    attempts: 1,
    allowLoopback: options.allowLoopback,
    timeoutMs: options.timeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  });
  const base = { at, round, latency_ms: Math.round(performance.now() - started) };
  switch (result.outcome) {
    case "delivered":
      return { ...base, status: result.status, error: null };
    case "refused":
      return { ...base, status: null, error: `refused: ${result.reason}` };
    case "failed":
      return { ...base, status: result.status ?? null, error: result.reason };
  }
}
