/**
 * A failed tool call: `isError` with one paragraph that says what happened, whether anything was
 * charged, and what to do next. Never a JSON-RPC error: the model reads tool results, not transport
 * errors, and should be able to act on the text alone.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { GatewayError } from "@rda/sdk";

export interface KeyRate {
  qps: number;
  burst: number;
}

const REFUNDED =
  "If a credit was taken for this call it is refunded automatically; check_credits shows the balance for free.";

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** `rate` is the key's limit when it is known (a 429 does not carry it). */
export function describeGatewayError(error: GatewayError, rate?: KeyRate): string {
  const wait = waitPhrase(error.retryAfterSeconds ?? 1);
  const refusal = refusalSentence(error);
  if (refusal !== undefined) return refusal;
  switch (error.kind) {
    case "bad_request":
      return `Invalid arguments: ${error.message}. Nothing was charged. Fix the arguments and call again.`;
    case "unauthorized":
      return `The API key was refused: ${error.message}. Check the x-api-key (or Authorization: Bearer) header of this MCP connection.`;
    case "insufficient_credits":
      return `Out of credits: ${error.message}. Nothing was charged. Top up the key's balance, then call again.`;
    case "spend_cap_reached":
      return `This API key's monthly spend cap is used up: ${error.message}. Nothing was charged. Calls resume when the cap resets, or once the key's owner raises it; check_credits shows the cap and the month's spend, free.`;
    case "rate_limited":
      return error.scope === "global"
        ? `The service's shared upstream capacity is busy (${error.message}). Wait ${wait} and call again; this call costs nothing.`
        : `${keyLimitSentence(rate)} Wait ${wait} and call again; nothing was charged.`;
    case "upstream_unavailable":
      // The API's own message says so when it refunded; say it once.
      return `The data source is failing right now (${error.message})${/refunded/i.test(error.message) ? "." : ". The credit was refunded."} Try again in a few seconds.`;
    case "service_unavailable":
      return `The service is temporarily unavailable. Wait ${wait} and call again. Nothing was charged.`;
    case "timeout":
    case "network":
      return `The API could not be reached (${error.message}). ${REFUNDED} Try again shortly.`;
    default:
      return `The API answered unexpectedly (${error.message}). ${REFUNDED}`;
  }
}

/** The owning service's refusals of a monitor or an export, by their catalog code. */
function refusalSentence(error: GatewayError): string | undefined {
  const code = error.code === null ? "" : ` (${error.code})`;
  switch (error.code) {
    case "resource_not_found":
      return `Not found${code}: ${error.message}. The id is unknown to this API key (or belongs to another key). Nothing was charged.`;
    case "state_conflict":
    case "monitor_limit_reached":
    case "export_limit_reached":
    case "quote_rate_limited":
      return `Refused${code}: ${error.message}. Nothing was charged.`;
    default:
      return undefined;
  }
}

function keyLimitSentence(rate: KeyRate | undefined): string {
  if (rate === undefined) {
    return "Rate limited: this API key's requests-per-second limit is used up (check_credits shows the limit, free).";
  }
  const qps = `${rate.qps} request${rate.qps === 1 ? "" : "s"} per second`;
  return `Rate limited: this API key allows ${qps} with bursts of ${rate.burst}, and that is used up; pace calls to at most ${rate.qps} per second.`;
}

function waitPhrase(seconds: number): string {
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
