/**
 * The HTTP server's limits and timeouts, chosen so that no client can hold a connection or a buffer
 * for as long as it likes (docs/api.md#limits, docs/operations.md#timeouts):
 * - the URL may hold 64 KiB (a batch of 5,000 ids fits; only the first 100 are used); the request
 *   line and header fields together 80 KiB. Past them: 414 or 431, as `{error}`.
 * - the request line and headers must arrive within `bodyTimeoutMs` (BODY_TIMEOUT_MS) of the
 *   request's first byte, and a body within `bodyTimeoutMs` once the headers are in (read-body.ts);
 *   Node's whole-request timeout, twice that, is only the backstop. Connections are checked every
 *   second, so a client trickling a byte at a time is cut within a second of its deadline: 408.
 * - a connection on which nothing moves either way for `idleMs` is closed (a client that stops
 *   reading its answer), never sooner than the longest quiet spell of a request being served.
 * - an idle keep-alive connection is closed after 72 s: longer than the common 60 s idle timeout of
 *   load balancers, so the balancer, not the gateway, closes a connection it might still reuse.
 */
import type { ServerOptions } from "node:http";

/** The longest URL (path and query) the gateway reads; longer is 414. */
export const URL_LIMIT_BYTES = 65_536;
/** The most the request line and header fields may weigh together; more is 431 (or 414). */
export const HEADER_LIMIT_BYTES = 81_920;
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
const CONNECTION_CHECK_INTERVAL_MS = 1_000;
const MIN_IDLE_MS = 60_000;

export interface ServedTimeouts {
  readonly bodyTimeoutMs: number;
  readonly adapterTimeoutMs: number;
  readonly billingTimeoutMs: number;
}

export function serverLimits(timeouts: ServedTimeouts) {
  // A request being served can be quiet through a key lookup, an admission, the adapter and a refund.
  const busiestQuietMs = timeouts.adapterTimeoutMs + 3 * timeouts.billingTimeoutMs;
  return {
    http: {
      maxHeaderSize: HEADER_LIMIT_BYTES,
      headersTimeout: timeouts.bodyTimeoutMs,
      connectionsCheckingInterval: CONNECTION_CHECK_INTERVAL_MS,
    } satisfies ServerOptions,
    requestTimeout: 2 * timeouts.bodyTimeoutMs,
    connectionTimeout: Math.max(MIN_IDLE_MS, 2 * busiestQuietMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A path parameter as long as the URL allows reaches the schema (a 400 naming the rule).
    routerOptions: { maxParamLength: URL_LIMIT_BYTES },
  };
}
