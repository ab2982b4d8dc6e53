/**
 * Failures as data: every way a call can fail is one `GatewayError` value with a `kind` to switch on.
 * HTTP kinds follow the spec's error table (§7); the rest describe the transport.
 */

export const ERROR_KIND_BY_STATUS = {
  400: "bad_request",
  401: "unauthorized",
  402: "insufficient_credits",
  429: "rate_limited",
  502: "upstream_unavailable",
  503: "service_unavailable",
} as const;

export type GatewayErrorKind =
  | (typeof ERROR_KIND_BY_STATUS)[keyof typeof ERROR_KIND_BY_STATUS]
  /** Any other HTTP status (404, 405, 413, 500…). */
  | "unexpected_status"
  /** A 200 whose body is not the documented envelope. */
  | "invalid_response"
  /** No HTTP answer: connection refused or reset, DNS failure. */
  | "network"
  /** No complete answer within `timeoutMs`. */
  | "timeout"
  /** The caller's own AbortSignal fired. */
  | "aborted";

export interface GatewayError {
  kind: GatewayErrorKind;
  /** HTTP status, or null when no HTTP answer arrived. */
  status: number | null;
  /** The API's `error` text, or a description of the transport failure. */
  message: string;
  /** From Retry-After (429, 503): whole seconds to wait before retrying; null otherwise. */
  retryAfterSeconds: number | null;
  /** For 429: `global` when the shared upstream reserve is exhausted (x-ratelimit-scope), else `key`. */
  scope: "key" | "global" | null;
  /** The gateway's x-request-id, to quote in a support request. */
  requestId: string | null;
}

export function httpError(
  status: number,
  message: string,
  headers: Record<string, string | string[] | undefined>,
): GatewayError {
  const kind = (ERROR_KIND_BY_STATUS as Record<number, GatewayErrorKind>)[status] ?? "unexpected_status";
  return {
    kind,
    status,
    message,
    retryAfterSeconds: parseRetryAfter(headerValue(headers, "retry-after")),
    scope:
      status === 429 ? (headerValue(headers, "x-ratelimit-scope") === "global" ? "global" : "key") : null,
    requestId: headerValue(headers, "x-request-id") ?? null,
  };
}

export function transportError(kind: "network" | "timeout" | "aborted", message: string): GatewayError {
  return { kind, status: null, message, retryAfterSeconds: null, scope: null, requestId: null };
}

export function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Spec §7 sends integer seconds; an HTTP date is honoured too, as RFC 9110 allows it. */
export function parseRetryAfter(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
