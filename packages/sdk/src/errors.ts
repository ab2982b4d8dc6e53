/**
 * Failures as data: every way a call can fail is one `GatewayError` value with a `kind` to switch on.
 * HTTP kinds follow the API's error statuses; the rest describe the transport. Where an exception is
 * the better shape (the paging iterators, `unwrap`), the same fields come as a `GatewayApiError`.
 */

import type { components } from "./generated/openapi.ts";

/** The API's stable error code (docs/api.md#errors): switch on it rather than on the message. */
export type ApiErrorCode = components["schemas"]["Error"]["code"];

export const ERROR_KIND_BY_STATUS = {
  400: "bad_request",
  401: "unauthorized",
  402: "insufficient_credits",
  429: "rate_limited",
  502: "upstream_unavailable",
  503: "service_unavailable",
} as const;

/**
 * How the API's 402 for a key's monthly spend cap begins (the balance's 402 says "insufficient
 * credits"): the one refusal the status alone does not tell apart.
 */
const SPEND_CAP_MESSAGE_START = "this key's monthly spend cap is reached";

export type GatewayErrorKind =
  | (typeof ERROR_KIND_BY_STATUS)[keyof typeof ERROR_KIND_BY_STATUS]
  /** 402 because the key spent its monthly spend cap; the message says when it resets. */
  | "spend_cap_reached"
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
  /** The API's error `code`; null when no API error body arrived. */
  code: ApiErrorCode | null;
  /** The one parameter the API named as at fault, when it named one. */
  param: string | null;
  /** From Retry-After (429, 503): whole seconds to wait before retrying; null otherwise. */
  retryAfterSeconds: number | null;
  /** For 429: `global` when the shared upstream budget refused (x-ratelimit-scope; `code` says whose), else `key`. */
  scope: "key" | "global" | null;
  /** The gateway's x-request-id, to quote in a support request. */
  requestId: string | null;
}

/** A `GatewayError` as an exception, thrown by the paging iterators and `unwrap`. */
export class GatewayApiError extends Error implements GatewayError {
  readonly kind: GatewayErrorKind;
  readonly status: number | null;
  readonly code: ApiErrorCode | null;
  readonly param: string | null;
  readonly retryAfterSeconds: number | null;
  readonly scope: "key" | "global" | null;
  readonly requestId: string | null;

  constructor(error: GatewayError) {
    super(error.message);
    this.name = "GatewayApiError";
    this.kind = error.kind;
    this.status = error.status;
    this.code = error.code;
    this.param = error.param;
    this.retryAfterSeconds = error.retryAfterSeconds;
    this.scope = error.scope;
    this.requestId = error.requestId;
  }
}

export function isGatewayApiError(value: unknown): value is GatewayApiError {
  return value instanceof GatewayApiError;
}

/** The value of a successful result, or its error thrown as a `GatewayApiError`. */
export function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: GatewayError }): T {
  if (result.ok) return result.value;
  throw new GatewayApiError(result.error);
}

export function httpError(
  status: number,
  message: string,
  headers: Headers,
  body?: { readonly code?: unknown; readonly param?: unknown },
): GatewayError {
  const code = typeof body?.code === "string" ? (body.code as ApiErrorCode) : null;
  const capReached =
    code === "spend_cap_reached" || (status === 402 && message.startsWith(SPEND_CAP_MESSAGE_START));
  const kind = capReached
    ? "spend_cap_reached"
    : ((ERROR_KIND_BY_STATUS as Record<number, GatewayErrorKind>)[status] ?? "unexpected_status");
  return {
    kind,
    status,
    message,
    code,
    param: typeof body?.param === "string" ? body.param : null,
    retryAfterSeconds: parseRetryAfter(headers.get("retry-after") ?? undefined),
    scope: status === 429 ? (headers.get("x-ratelimit-scope") === "global" ? "global" : "key") : null,
    requestId: headers.get("x-request-id"),
  };
}

export function transportError(kind: "network" | "timeout" | "aborted", message: string): GatewayError {
  return {
    kind,
    status: null,
    message,
    code: null,
    param: null,
    retryAfterSeconds: null,
    scope: null,
    requestId: null,
  };
}

/** The API sends integer seconds; an HTTP date is honoured too, as RFC 9110 allows it. */
export function parseRetryAfter(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
