/**
 * The one catalog of public errors (docs/api.md#errors): status, whether a debit taken for the request
 * is refunded, the scope header, the public message and what it means for the caller. The public
 * body is `{error, code}`, plus `param` when one parameter is at fault (`errorBody`): `error` is the
 * sentence for a person, `code` the stable name a client switches on. Which codes each kind of
 * endpoint can answer is listed here too, and the OpenAPI responses are derived from those lists, so
 * the document, the catalog and the code paths cannot drift apart (test/catalog guards it).
 */

export interface ErrorEntry {
  readonly status: number;
  /** A request that fails this way after its debit gets the credit back (docs/api.md#charging). */
  readonly refunded: boolean;
  /** `x-ratelimit-scope: global` only for the shared upstream budget: ours spent, or the upstream's refusal. */
  readonly scope?: "global";
  readonly message: string;
  /** When it happens and what it costs, for the API reference. */
  readonly description: string;
}

export const ERRORS = {
  invalid_parameter: {
    status: 400,
    refunded: false,
    message: "invalid parameter",
    description: "A parameter is missing, unknown or invalid; the message names it. Not charged.",
  },
  upstream_rejected: {
    status: 400,
    refunded: true,
    message: "the data source rejected the request's parameters",
    description: "The data source refused the parameters after the debit. The credit is refunded.",
  },
  window_too_large: {
    status: 400,
    refunded: true,
    message: "the window holds more items than one request reads",
    description:
      "An activity search (`q`) found more items in its window than the one upstream page a request reads; narrow or split the window. The data source did not fail. The credit is refunded.",
  },
  missing_api_key: {
    status: 401,
    refunded: false,
    message: "missing API key: send it as 'x-api-key: <key>' or 'Authorization: Bearer <key>'",
    description: "No API key was sent. Not charged.",
  },
  invalid_api_key: {
    status: 401,
    refunded: false,
    message: "unknown or revoked API key",
    description: "The API key is malformed, unknown or revoked. Not charged.",
  },
  invalid_token: {
    status: 401,
    refunded: false,
    message: "invalid access token",
    description:
      "At /mcp: the OAuth access token is malformed, expired, for another resource, sent in the URL, or its app was disconnected or its key revoked; `WWW-Authenticate` says why and where to get a new one. Not charged.",
  },
  insufficient_credits: {
    status: 402,
    refunded: false,
    message: "insufficient credits: your balance is 0",
    description: "The balance is 0; the message carries the top-up link. Not charged.",
  },
  spend_cap_reached: {
    status: 402,
    refunded: false,
    message: "this key's monthly spend cap is reached",
    description:
      "The key has spent its monthly spend cap (credits per calendar month, UTC, set by its owner); the message names the cap, when it resets, and where to change it. Not charged.",
  },
  not_found: {
    status: 404,
    refunded: false,
    message: "no such endpoint",
    description: "No endpoint at this path.",
  },
  resource_not_found: {
    status: 404,
    refunded: false,
    message: "no such resource",
    description:
      "No monitor, delivery or export with this id belongs to the key (another key's is answered the same way). Not charged.",
  },
  method_not_allowed: {
    status: 405,
    refunded: false,
    message: "this API is read-only: only GET is allowed",
    description: "The API is read-only; only GET is served (`Allow: GET`).",
  },
  request_timeout: {
    status: 408,
    refunded: false,
    message: "the request did not arrive in time",
    description:
      "The request line and headers, or the body, were not received in full before their deadline (10 s each by default); the connection is closed. Not charged.",
  },
  idempotency_in_progress: {
    status: 409,
    refunded: false,
    message: "a request with this Idempotency-Key is still being served; retry once it has finished",
    description:
      "Another request with the same `Idempotency-Key` is still being served; retry it once that one has finished. Not charged.",
  },
  idempotency_response_not_kept: {
    status: 409,
    refunded: false,
    message:
      "the request with this Idempotency-Key was served and charged, but its response was not kept for replay; send a new Idempotency-Key to fetch it again",
    description:
      "The first request with this `Idempotency-Key` was served and charged, but its response was not stored for replay: it was larger than 1 MiB, or the key's share of the replay store was full (docs/api.md#idempotency). Fetching it again needs a new `Idempotency-Key` and is charged. Not charged.",
  },
  state_conflict: {
    status: 409,
    refunded: false,
    message: "the resource's state does not allow this",
    description:
      "The monitor, delivery or export is not in a state that allows the request (an export already started, a monitor without a webhook); the message says which. Not charged.",
  },
  monitor_limit_reached: {
    status: 409,
    refunded: false,
    message: "the limit on monitors is reached; delete one first",
    description: "The account (or an operator's key) holds as many monitors as it may. Not charged.",
  },
  payload_too_large: {
    status: 413,
    refunded: false,
    message: "request body too large",
    description: "The request body is over the limit.",
  },
  uri_too_long: {
    status: 414,
    refunded: false,
    message: "the URL is too long: at most 65536 bytes of path and query are read",
    description:
      "The URL (path and query) is over 64 KiB (65,536 bytes); a batch of ids needs far less. Not charged.",
  },
  headers_too_large: {
    status: 431,
    refunded: false,
    message: "the request's header fields are too large",
    description:
      "The request line and header fields together are over 80 KiB (81,920 bytes); the connection is closed. Not charged.",
  },
  idempotency_key_reused: {
    status: 422,
    refunded: false,
    message: "this Idempotency-Key was already used with a different request",
    description:
      "The `Idempotency-Key` was already used, within 24 hours, with a different method, path, query or body. Not charged.",
  },
  rate_limited: {
    status: 429,
    refunded: false,
    message: "rate limit exceeded for this API key",
    description: "The key's own rate limit is exhausted; wait `Retry-After` seconds. Not charged.",
  },
  global_rate_limited: {
    status: 429,
    refunded: true,
    scope: "global",
    message: "our shared budget of requests to the data source is spent for now; try again after Retry-After",
    description:
      "Our own upstream budget, shared fairly by every account, had no turn for this request in time (`x-ratelimit-scope: global`); nothing was sent to the data source. Wait `Retry-After` seconds. The credit is refunded.",
  },
  auth_failures_throttled: {
    status: 429,
    refunded: false,
    message: "too many requests with a malformed, unknown or revoked API key from this address",
    description:
      "This client address sent too many requests with a malformed, unknown or revoked key; for `Retry-After` seconds it is served only with a key already known to be valid. Not charged.",
  },
  upstream_rate_limited: {
    status: 429,
    refunded: true,
    scope: "global",
    message: "the data source is rate limiting us",
    description:
      "The data source itself is rate limiting (`x-ratelimit-scope: global`); wait `Retry-After` seconds. The credit is refunded.",
  },
  quote_rate_limited: {
    status: 429,
    refunded: false,
    message: "too many export quotes this minute for this account",
    description:
      "The account asked, over all its keys, for more export quotes this minute than it may (each reads the archive); wait `Retry-After` seconds. Not charged.",
  },
  export_limit_reached: {
    status: 429,
    refunded: false,
    message: "too many exports are queued, running or paused for this account",
    description:
      "The account has as many exports queued, running or paused as it may; wait for one to end or cancel one. Not charged.",
  },
  internal_error: {
    status: 500,
    refunded: true,
    message: "internal error",
    description: "A fault of the service. A credit taken for the request is refunded.",
  },
  upstream_unavailable: {
    status: 502,
    refunded: true,
    message: "the data source is unreachable or failing after retries",
    description: "The data source is unreachable or failing after retries. The credit is refunded.",
  },
  service_unavailable: {
    status: 503,
    refunded: false,
    message: "the service is temporarily unavailable; nothing was charged",
    description:
      "A dependency of the service is briefly down; retry after `Retry-After` seconds. Not charged.",
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * What the HTTP layer answers any request before it reaches an endpoint: headers that trickle in, a
 * URL or header fields over the limits (docs/api.md#limits).
 */
export const EDGE_ERROR_CODES = ["request_timeout", "uri_too_long", "headers_too_large"] as const;

/** What a data endpoint can answer besides 200. */
export const DATA_ERROR_CODES = [
  ...EDGE_ERROR_CODES,
  "invalid_parameter",
  "upstream_rejected",
  "window_too_large",
  "missing_api_key",
  "invalid_api_key",
  "auth_failures_throttled",
  "insufficient_credits",
  "spend_cap_reached",
  "idempotency_in_progress",
  "idempotency_response_not_kept",
  "idempotency_key_reused",
  "rate_limited",
  "global_rate_limited",
  "upstream_rate_limited",
  "internal_error",
  "upstream_unavailable",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

/**
 * What the account endpoint can answer besides 200: by contract 401 and 429; 503 while a dependency
 * is down (docs/api.md#amendments-to-the-original-contract) and 500 on a fault of ours; and the HTTP layer's own refusals.
 */
export const ACCOUNT_ERROR_CODES = [
  ...EDGE_ERROR_CODES,
  "missing_api_key",
  "invalid_api_key",
  "auth_failures_throttled",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

/** What POST /mcp can answer at the gateway, before the MCP service speaks JSON-RPC. */
export const MCP_ERROR_CODES = [
  ...EDGE_ERROR_CODES,
  "missing_api_key",
  "invalid_api_key",
  "auth_failures_throttled",
  "invalid_token",
  "payload_too_large",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

/** The distinct statuses of a list of codes, ascending. */
export function statusesOf(codes: readonly ErrorCode[]): number[] {
  return [...new Set(codes.map((code) => ERRORS[code].status))].sort((a, b) => a - b);
}

export interface ErrorMessageContext {
  /** What exactly was wrong, e.g. which parameter and why. */
  readonly detail?: string | undefined;
  /** The debit taken for the request was given back. */
  readonly refunded?: boolean | undefined;
  /** Where to buy credits; quoted in every 402. */
  readonly topUpUrl?: string | undefined;
  /** Where the key's owner changes its monthly spend cap; quoted when the cap refused a request. */
  readonly spendCapUrl?: string | undefined;
}

/** The public `error` text of a failure: the catalog's message, the detail, and what it cost. */
export function publicErrorMessage(code: ErrorCode, context: ErrorMessageContext = {}): string {
  let message = context.detail ? `${ERRORS[code].message}: ${context.detail}` : ERRORS[code].message;
  if (context.refunded) message += "; the credit was refunded";
  if (code === "insufficient_credits") message += `; top up at ${context.topUpUrl}`;
  if (code === "spend_cap_reached") message += `; change the cap at ${context.spendCapUrl}`;
  return message;
}

/**
 * The codes a service behind the gateway (monitors, exports) refuses a command with. Its refusal
 * carries the code and its own sentence; the gateway answers it like any other failure.
 */
export const SERVICE_REFUSAL_CODES = [
  "invalid_parameter",
  "insufficient_credits",
  "resource_not_found",
  "state_conflict",
  "monitor_limit_reached",
  "quote_rate_limited",
  "export_limit_reached",
  "global_rate_limited",
  "upstream_rate_limited",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];
export type ServiceRefusalCode = (typeof SERVICE_REFUSAL_CODES)[number];

/** The public error body (docs/api.md#errors; `errorBodySchema` documents it). */
export function errorBody(
  code: ErrorCode,
  error: string,
  param?: string,
): { error: string; code: ErrorCode; param?: string } {
  const named = param ?? (code === "invalid_parameter" ? paramNamedIn(error) : undefined);
  return named === undefined ? { error, code } : { error, code, param: named };
}

/**
 * The parameter a validation sentence names, written as every validator here writes them
 * (`parameter 'limit' …`, `unknown parameter 'foo'`, `limit: …`); none when it names several.
 */
export function paramNamedIn(sentence: string): string | undefined {
  const detail = sentence.startsWith(`${ERRORS.invalid_parameter.message}: `)
    ? sentence.slice(ERRORS.invalid_parameter.message.length + 2)
    : sentence;
  const quoted = /^(?:unknown )?parameter '([^']{1,64})'(?: |$)/.exec(detail);
  if (quoted) return quoted[1];
  const field = /^([A-Za-z_][A-Za-z0-9_.]{0,63}): /.exec(detail);
  return field && !detail.includes("; ") ? field[1] : undefined;
}
