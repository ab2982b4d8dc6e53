/**
 * A failed tool call: `isError` with one paragraph that says what happened (naming the API's stable
 * error code), that nothing was charged, and when to call again (from `Retry-After`). Never a
 * JSON-RPC error: the model reads tool results, not transport errors, and should be able to act on
 * the text alone. The same facts, for the host's code, are in the result's `_meta` under
 * ERROR_META_KEY; not in `structuredContent`, which clients check against the tool's output schema
 * (the successful result's shape) even on an error (docs/api.md#mcp-endpoint-errors).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ERRORS, type ErrorCode } from "@rda/contracts";
import type { GatewayError } from "@rda/sdk";

export interface KeyRate {
  qps: number;
  burst: number;
}

/** Where a failed result carries its code, its wait and its request id (prefixed as MCP asks of `_meta`). */
export const ERROR_META_KEY = "reddit-data-api/error";

/** What `_meta[ERROR_META_KEY]` holds. */
export interface ToolErrorMeta {
  /** The API's catalog code (docs/api.md#errors); null when no API answer arrived. */
  code: ErrorCode | null;
  /** Seconds to wait before calling again, from `Retry-After`; null when the answer gave none. */
  retry_after_seconds: number | null;
  /** The gateway's x-request-id, to quote when asking for help; null when no answer arrived. */
  request_id: string | null;
}

const NOT_CHARGED = "Nothing was charged.";
/** For the codes the catalog refunds: the debit was taken, then given back. */
const REFUNDED = "Nothing was charged: any credit taken for this call was refunded.";
/** When no answer says whether the call was served. */
const MAYBE_SERVED =
  "If a credit was taken for this call it is refunded automatically; check_credits shows the balance for free.";

/** A failed result with the text alone, or with the facts of the API's answer in `_meta`. */
export function errorResult(text: string, error?: GatewayError): CallToolResult {
  const result: CallToolResult = { isError: true, content: [{ type: "text", text }] };
  if (error) result._meta = { [ERROR_META_KEY]: errorMeta(error) };
  return result;
}

/** The API's answer as a failed result, in words (describeGatewayError) and in `_meta`. */
export function gatewayErrorResult(error: GatewayError, rate?: KeyRate): CallToolResult {
  return errorResult(describeGatewayError(error, rate), error);
}

/** Arguments refused before any call to the API, as the API would refuse them (`invalid_parameter`). */
export function invalidArgumentsResult(detail: string): CallToolResult {
  const text = `Invalid arguments (invalid_parameter): ${detail}. ${NOT_CHARGED} Fix the arguments and call again.`;
  const meta: ToolErrorMeta = { code: "invalid_parameter", retry_after_seconds: null, request_id: null };
  return { isError: true, content: [{ type: "text", text }], _meta: { [ERROR_META_KEY]: meta } };
}

/** The facts of the API's answer, also the `data` of a JSON-RPC error for a resource read or a task. */
export function errorMeta(error: GatewayError): ToolErrorMeta {
  return {
    code: catalogCode(error),
    retry_after_seconds: error.retryAfterSeconds,
    request_id: error.requestId,
  };
}

/** `rate` is the key's limit when it is known (a 429 does not carry it). */
export function describeGatewayError(error: GatewayError, rate?: KeyRate): string {
  const code = catalogCode(error) ?? codeOfStatus(error);
  if (code !== null) return SENTENCES[code]({ error, rate, ...facts(error, code) });
  switch (error.kind) {
    case "timeout":
    case "network":
      return `The API could not be reached (${error.message}). ${MAYBE_SERVED} Try again shortly.`;
    case "rate_limited":
      // A 429 of scope global without a code: whose limit it was is all the answer says.
      return `The data source could not be asked for this call (${error.message}): the service's shared budget of requests to it is spent, or the data source is limiting the service. ${REFUNDED} Wait ${waitPhrase(error)} and call again.`;
    default:
      return `The API answered unexpectedly (${error.message}). ${MAYBE_SERVED}`;
  }
}

/** The catalog code of the answer; a code the catalog does not hold counts as none. */
function catalogCode(error: GatewayError): ErrorCode | null {
  return error.code !== null && Object.hasOwn(ERRORS, error.code) ? error.code : null;
}

/** For an answer without a code, the one its status stands for, where it stands for one. */
function codeOfStatus(error: GatewayError): ErrorCode | null {
  switch (error.kind) {
    case "bad_request":
      return "invalid_parameter";
    case "unauthorized":
      return "invalid_api_key";
    case "insufficient_credits":
      return "insufficient_credits";
    case "spend_cap_reached":
      return "spend_cap_reached";
    case "rate_limited":
      return error.scope === "global" ? null : "rate_limited";
    case "upstream_unavailable":
      return "upstream_unavailable";
    case "service_unavailable":
      return "service_unavailable";
    default:
      return null;
  }
}

interface Facts {
  error: GatewayError;
  rate: KeyRate | undefined;
  /** The API's message without the refund it mentions (the sentence says it once). */
  detail: string;
  /** ": <what the message adds to the catalog's words>", or "" when it adds nothing. */
  extra: string;
  /** "7 seconds": from Retry-After, else "a few seconds". */
  wait: string;
  /** "" or " Quote request id … when asking for help." */
  quote: string;
  /** The charge sentence the catalog implies: not charged, or refunded. */
  charged: string;
}

function facts(
  error: GatewayError,
  code: ErrorCode,
): Pick<Facts, "detail" | "extra" | "wait" | "quote" | "charged"> {
  const detail = error.message.replace(/;\s*the credit was refunded\.?$/i, "").replace(/\.$/, "");
  const catalog: string = ERRORS[code].message;
  const added = detail.startsWith(`${catalog}: `) ? detail.slice(catalog.length + 2) : detail;
  return {
    detail,
    extra: added === catalog ? "" : `: ${added}`,
    wait: waitPhrase(error),
    quote: error.requestId ? ` Quote request id ${error.requestId} when asking for help.` : "",
    charged: ERRORS[code].refunded ? REFUNDED : NOT_CHARGED,
  };
}

/**
 * One sentence per catalog code, in the words an agent acts on: what happened (and whose fault),
 * that it cost nothing, and when calling again helps. Typed over the whole catalog, so a new code
 * cannot reach an agent without its own sentence.
 */
const SENTENCES: Record<ErrorCode, (facts: Facts) => string> = {
  invalid_parameter: ({ detail, charged }) =>
    `Invalid arguments (invalid_parameter): ${detail}. ${charged} Fix the arguments and call again.`,
  upstream_rejected: ({ extra, charged }) =>
    `The data source refused these arguments (upstream_rejected)${extra}. ${charged} Change the arguments; the same call would be refused again.`,
  window_too_large: ({ extra, charged }) =>
    `The window holds more items than one search reads (window_too_large)${extra}. The data source did not fail. ${charged} Narrow the window (after, before) or split it into several calls.`,
  missing_api_key: keyRefused("missing_api_key"),
  invalid_api_key: keyRefused("invalid_api_key"),
  invalid_token: keyRefused("invalid_token"),
  insufficient_credits: ({ detail, charged }) =>
    `Out of credits (insufficient_credits): ${detail}. ${charged} Top up the key's balance, then call again.`,
  spend_cap_reached: ({ detail, charged }) =>
    `This API key's monthly spend cap is used up (spend_cap_reached): ${detail}. ${charged} Calls resume when the cap resets, or once the key's owner raises it; check_credits shows the cap and the month's spend, free.`,
  not_found: refused("not_found", "The API has no endpoint for this call; this is a fault of this service."),
  resource_not_found: ({ detail, charged }) =>
    `Not found (resource_not_found): ${detail}. The id is unknown to this API key (or belongs to another key). ${charged}`,
  method_not_allowed: refused(
    "method_not_allowed",
    "The API does not take this call's method; this is a fault of this service.",
  ),
  request_timeout: ({ extra, charged }) =>
    `The API did not receive this call in time (request_timeout)${extra}. ${charged} Call again.`,
  idempotency_in_progress: ({ extra, charged, wait }) =>
    `An earlier call with the same Idempotency-Key is still being served (idempotency_in_progress)${extra}. ${charged} Wait ${wait} and call again.`,
  idempotency_response_not_kept: ({ extra }) =>
    `The earlier call with this Idempotency-Key was served and charged, but its answer was not kept for replay (idempotency_response_not_kept)${extra}. This call was not charged. A call with a new Idempotency-Key fetches the answer again, charged like any other.`,
  state_conflict: refused("state_conflict"),
  monitor_limit_reached: refused("monitor_limit_reached", "list_monitors shows the monitors, free."),
  payload_too_large: refused("payload_too_large", "Send smaller arguments."),
  uri_too_long: refused("uri_too_long", "Ask for fewer ids in one call."),
  headers_too_large: refused("headers_too_large"),
  idempotency_key_reused: refused(
    "idempotency_key_reused",
    "An Idempotency-Key names one request; send a new one with changed arguments.",
  ),
  rate_limited: ({ rate, charged, wait }) =>
    `${keyLimitSentence(rate, " (rate_limited)")} ${charged} Wait ${wait} and call again.`,
  global_rate_limited: ({ charged, wait }) =>
    `The service's own budget of requests to the data source, which every account shares, had no turn for this call in time (global_rate_limited). This key's own limit is not the cause, and nothing was sent to the data source. ${charged} Wait ${wait} and call again; calling sooner is refused the same way.`,
  auth_failures_throttled: ({ charged, wait }) =>
    `Too many calls with a malformed, unknown or revoked API key came from this address (auth_failures_throttled). ${charged} Check the x-api-key (or Authorization: Bearer) header of this MCP connection; for ${wait} only a key already known to be valid is served.`,
  upstream_rate_limited: ({ charged, wait }) =>
    `The data source itself is rate limiting this service and refused the call (upstream_rate_limited); neither this key's limit nor the service's own budget is the cause. ${charged} Wait ${wait}, when the data source's limit allows requests again, and call again.`,
  quote_rate_limited: ({ detail, charged, wait }) =>
    `Refused (quote_rate_limited): ${detail}. ${charged} Wait ${wait} and ask for the quote again.`,
  export_limit_reached: ({ detail, charged, wait }) =>
    `Refused (export_limit_reached): ${detail}. ${charged} Call again once one of the account's exports has ended (list_exports shows them; try in ${wait}), or after cancelling one.`,
  internal_error: ({ charged, quote }) =>
    `The service failed on its own side (internal_error); the data source is not at fault. ${charged} Call again in a few seconds.${quote}`,
  upstream_unavailable: ({ charged }) =>
    `The data source is failing or unreachable right now, after retries (upstream_unavailable). ${charged} Call again in a few seconds; if it keeps failing, try later.`,
  service_unavailable: ({ charged, wait }) =>
    `The service is briefly unavailable on its own side (service_unavailable); the data source is not at fault. ${charged} Wait ${wait} and call again.`,
};

/** A refusal whose API message says what was wrong; `next`, when given, what to do about it. */
function refused(code: ErrorCode, next?: string): (facts: Facts) => string {
  return ({ detail, charged }) => `Refused (${code}): ${detail}. ${charged}${next ? ` ${next}` : ""}`;
}

function keyRefused(code: ErrorCode): (facts: Facts) => string {
  return ({ detail, charged }) =>
    `The API key was refused (${code}): ${detail}. ${charged} Check the x-api-key (or Authorization: Bearer) header of this MCP connection; calling again with it will not help.`;
}

function keyLimitSentence(rate: KeyRate | undefined, code = ""): string {
  if (rate === undefined) {
    return `Rate limited${code}: this API key's requests-per-second limit is used up (check_credits shows the limit, free).`;
  }
  const qps = `${rate.qps} request${rate.qps === 1 ? "" : "s"} per second`;
  return `Rate limited${code}: this API key allows ${qps} with bursts of ${rate.burst}, and that is used up; pace calls to at most ${rate.qps} per second.`;
}

function waitPhrase(error: GatewayError): string {
  const seconds = error.retryAfterSeconds;
  if (seconds === null) return "a few seconds";
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
