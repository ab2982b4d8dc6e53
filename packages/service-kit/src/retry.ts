/**
 * The one retry loop: try, and on failure wait a doubling delay (from `firstMs`, at most `maxMs`)
 * before the next try, until an attempt succeeds or `giveUp` says the next wait is not worth it.
 */
import type { Result } from "@rda/contracts";

export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

/** 100 ms, 200 ms, … up to 2 s between tries: quick through a blip, gentle through an outage. */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 100, maxMs: 2_000 };

/** Returns the first success, or the last failure once `giveUp(nextDelayMs)` answers true. */
export async function retryWithBackoff<T, E>(
  attempt: () => Promise<Result<T, E>>,
  options: { readonly giveUp: (nextDelayMs: number) => boolean; readonly backoff?: Backoff },
): Promise<Result<T, E>> {
  const { firstMs, maxMs } = options.backoff ?? DEFAULT_BACKOFF;
  for (let delay = firstMs; ; delay = Math.min(2 * delay, maxMs)) {
    const result = await attempt();
    if (result.ok || options.giveUp(delay)) return result;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
