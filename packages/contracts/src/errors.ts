/**
 * The one catalog of public errors: status, whether a debit taken for the request is refunded, and
 * the scope header. The public body is always exactly `{error: message}`; the code goes to the logs.
 */

export interface ErrorEntry {
  readonly status: number;
  /** Spec §7: a request that fails after its debit gets the credit back. */
  readonly refunded: boolean;
  /** Spec §7: `x-ratelimit-scope: global` only for the shared upstream reserve. */
  readonly scope?: "global";
  readonly message: string;
}

export const ERRORS = {
  invalid_parameter: { status: 400, refunded: false, message: "invalid parameter" },
  upstream_rejected: {
    status: 400,
    refunded: true,
    message: "the data source rejected the request's parameters; the credit was refunded",
  },
  missing_api_key: {
    status: 401,
    refunded: false,
    message: "missing API key: send it as 'x-api-key: <key>' or 'Authorization: Bearer <key>'",
  },
  invalid_api_key: { status: 401, refunded: false, message: "unknown or revoked API key" },
  insufficient_credits: { status: 402, refunded: false, message: "insufficient credits: your balance is 0" },
  not_found: { status: 404, refunded: false, message: "no such endpoint" },
  method_not_allowed: { status: 405, refunded: false, message: "this API is read-only: only GET is allowed" },
  payload_too_large: { status: 413, refunded: false, message: "request body too large" },
  rate_limited: { status: 429, refunded: false, message: "rate limit exceeded for this API key" },
  global_rate_limited: {
    status: 429,
    refunded: false,
    scope: "global",
    message: "the shared upstream capacity is exhausted; nothing was charged",
  },
  upstream_rate_limited: {
    status: 429,
    refunded: true,
    scope: "global",
    message: "the data source is rate limiting us; the credit was refunded",
  },
  internal_error: { status: 500, refunded: true, message: "internal error; the credit was refunded" },
  upstream_unavailable: {
    status: 502,
    refunded: true,
    message: "the data source is unreachable or failing after retries; the credit was refunded",
  },
  service_unavailable: {
    status: 503,
    refunded: false,
    message: "the service is temporarily unavailable; nothing was charged",
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** Statuses each kind of endpoint can answer, for the OpenAPI document (spec §7). */
export const DATA_ERROR_STATUSES = [400, 401, 402, 429, 502, 503] as const;
export const ACCOUNT_ERROR_STATUSES = [401, 429] as const;
