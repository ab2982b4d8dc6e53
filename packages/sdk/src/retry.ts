/**
 * When and how long to wait before trying a call again. Retried: 429 and 503 (the API says when, in
 * `Retry-After`, and charged nothing) and failures with no complete answer (network errors and
 * timeouts, when the request may or may not have been served: the call's `Idempotency-Key` lets the
 * API answer a retry with the first response instead of charging twice). Nothing else is retried:
 * a 400, 401 or 402 would fail the same way again, and a 502 was already refunded.
 */
import type { GatewayError, GatewayErrorKind } from "./errors.ts";
import type { RetryOptions } from "./types.ts";

const RETRIED: ReadonlySet<GatewayErrorKind> = new Set([
  "rate_limited",
  "service_unavailable",
  "network",
  "timeout",
]);
const DEFAULT_MAX_DELAY_MS = 30_000;
const DEFAULT_BASE_DELAY_MS = 500;

/** Milliseconds to wait before retry number `retry` (0-based), or null to give up. */
export function retryDelay(error: GatewayError, retry: number, policy: RetryOptions): number | null {
  if (retry >= policy.retries || !RETRIED.has(error.kind)) return null;
  const maxDelay = policy.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (error.retryAfterSeconds !== null) {
    const wait = error.retryAfterSeconds * 1000;
    return wait <= maxDelay ? wait : null;
  }
  // Exponential backoff with jitter, so many clients failing together do not retry together.
  const ceiling = Math.min(maxDelay, (policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** retry);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
