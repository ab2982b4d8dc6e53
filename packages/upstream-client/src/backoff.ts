/** Exponential backoff with full jitter: spreads retries of many callers instead of synchronising them. */

export function fullJitterDelayMs(
  retry: number,
  baseMs: number,
  capMs: number,
  random = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
