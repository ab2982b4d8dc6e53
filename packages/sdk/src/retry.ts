/**
 * Retrying a call, and only where a retry cannot do twice what the first attempt did. The one loop
 * every call of the client goes through (data calls in client.ts, monitors and exports in
 * json-call.ts); what each call may be retried after comes from its route's declaration in the
 * generated contract (OPERATIONS, MANAGEMENT_ROUTES: method, credits, `idempotent`).
 *
 * Retried: 429 and 503 (the API says when, in `Retry-After`, and charged nothing) and failures with
 * no complete answer (network errors and timeouts, when the request may or may not have been
 * served: the call's `Idempotency-Key` lets the API answer a retry with the first response instead
 * of charging, or creating, twice; docs/api.md#idempotency). Nothing else is retried: a 400, 401 or
 * 402 would fail the same way again, and a 502 was already refunded.
 */
import { type GatewayError, type GatewayErrorKind, transportError } from "./errors.ts";
import type { GatewayResult, RetryOptions } from "./types.ts";

/** What of a route's declaration decides whether, and after what, a call of it is retried. */
export interface RetriedRoute {
  readonly method: string;
  readonly credits: number;
  /** It takes `Idempotency-Key`: a repeat under the same key is answered, not done, again. */
  readonly idempotent: boolean;
}

const RETRIED: ReadonlySet<GatewayErrorKind> = new Set([
  "rate_limited",
  "service_unavailable",
  "network",
  "timeout",
]);
/** A 429 is answered before the route does anything (the key's bucket, a quota): never served. */
const REFUSED_BEFORE_SERVING: ReadonlySet<GatewayErrorKind> = new Set(["rate_limited"]);
const DEFAULT_MAX_DELAY_MS = 30_000;
const DEFAULT_BASE_DELAY_MS = 500;

/** The call's own policy, else the client's; null when it does not retry. */
export function retryPolicy(
  fromClient: RetryOptions | undefined,
  fromCall: RetryOptions | false | undefined,
): RetryOptions | null {
  const policy = fromCall === undefined ? fromClient : fromCall;
  return policy && policy.retries > 0 ? policy : null;
}

/**
 * The `Idempotency-Key` a call sends on each of its attempts: the caller's, else, when it may be
 * retried, a new random one (Web Crypto: Node 20+, browsers, Deno, Bun). None on a route that does
 * not take one: the API would ignore it.
 */
export function idempotencyKeyFor(
  route: RetriedRoute,
  given: string | undefined,
  policy: RetryOptions | null,
): string | undefined {
  if (!route.idempotent) return undefined;
  return given ?? (policy ? globalThis.crypto.randomUUID() : undefined);
}

/**
 * Makes the call's attempts: the first, then a retry after each failure the route may be retried
 * after, as long as the policy allows, waiting as `retryDelay` says.
 */
export async function withRetries<T>(
  route: RetriedRoute,
  policy: RetryOptions | null,
  signal: AbortSignal | undefined,
  callOnce: () => Promise<GatewayResult<T>>,
): Promise<GatewayResult<T>> {
  const retried = retriedFailures(route);
  for (let retry = 0; ; retry++) {
    const result = await callOnce();
    if (result.ok || !policy) return result;
    const wait = retryDelay(result.error, retry, policy, retried);
    if (wait === null) return result;
    if (!(await sleep(wait, signal))) {
      return { ok: false, error: transportError("aborted", "the call was aborted") };
    }
  }
}

/**
 * After which failures a route's call is retried, from its declaration:
 * - one that takes `Idempotency-Key` (every data call but the account's, creating a monitor or
 *   an export, starting or resuming an export, a redelivery, a new webhook secret): after every
 *   failure above, since each attempt carries the same key and a first attempt that was in fact
 *   served is answered again;
 * - a free GET (reading a monitor, an export, a list): after every failure too, as reading twice
 *   changes nothing;
 * - any other (pausing or cancelling an export, changing or deleting a monitor, a webhook's test
 *   event, a charged pull of a monitor's items, an estimate): only after a 429. A 503 or a lost
 *   answer may come after the work was done (the service that does it answered too late): it
 *   would be done again (a second test event, a page charged twice) or refused as done already (a
 *   cancel answered 409 for a cancel that took effect).
 */
function retriedFailures(route: RetriedRoute): ReadonlySet<GatewayErrorKind> {
  const readsOnly = route.method === "GET" && route.credits === 0;
  return route.idempotent || readsOnly ? RETRIED : REFUSED_BEFORE_SERVING;
}

/** Milliseconds to wait before retry number `retry` (0-based), or null to give up. */
function retryDelay(
  error: GatewayError,
  retry: number,
  policy: RetryOptions,
  retried: ReadonlySet<GatewayErrorKind>,
): number | null {
  if (retry >= policy.retries || !retried.has(error.kind)) return null;
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
