/**
 * What a tool call returns to the agent. Success: the API's envelope as structuredContent, the same
 * JSON as text, and one line saying what it cost and how to get the next page. Failure: `isError`
 * with a message that says what happened, whether anything was charged, and what to do next.
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CreditServiceMeta, ListServiceMeta, OperationName } from "@rda/contracts";
import type { Envelope, GatewayError } from "@rda/gateway-client";

export function successResult<N extends OperationName>(
  envelope: Envelope<N>,
  params: Record<string, unknown>,
): CallToolResult {
  return {
    structuredContent: envelope as unknown as Record<string, unknown>,
    content: [
      { type: "text", text: JSON.stringify(envelope) },
      { type: "text", text: summary(envelope._service, params) },
    ],
  };
}

function summary(
  service: CreditServiceMeta & Partial<ListServiceMeta>,
  params: Record<string, unknown>,
): string {
  const used = service.credits_used;
  const cost = `Charged ${used} credit${used === 1 ? "" : "s"}; ${service.credits_remaining} remaining.`;
  if (!service.has_more || service.cursor === null || service.cursor === undefined) return cost;
  // Spec §4 rule 6: the cursor goes into `before` for newest-first pages and `after` for oldest-first.
  const bound = params.sort === "asc" ? "after" : "before";
  return `${cost} More results: call again with the same arguments and ${bound}=${service.cursor}.`;
}

export function errorResult(error: GatewayError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: describeError(error) }] };
}

const REFUNDED =
  "If a credit was taken for this call it is refunded automatically; check_credits shows the balance for free.";

export function describeError(error: GatewayError): string {
  const wait = error.retryAfterSeconds ?? 1;
  switch (error.kind) {
    case "bad_request":
      return `Invalid arguments: ${error.message}. Nothing was charged. Fix the arguments and call again.`;
    case "unauthorized":
      return `The API key was refused: ${error.message}. Check the x-api-key header of this MCP connection.`;
    case "insufficient_credits":
      return `Out of credits: ${error.message}. Nothing was charged. Top up the key's balance, then call again.`;
    case "rate_limited":
      return error.scope === "global"
        ? `The service's shared upstream capacity is busy. Wait ${wait} second${wait === 1 ? "" : "s"} and call again. Nothing was charged.`
        : `Rate limited: this API key allows a few requests per second. Wait ${wait} second${wait === 1 ? "" : "s"} and call again. Nothing was charged.`;
    case "upstream_unavailable":
      return `The data source is failing right now (${error.message}). The credit was refunded. Try again in a few seconds.`;
    case "service_unavailable":
      return `The service is temporarily unavailable. Wait ${wait} second${wait === 1 ? "" : "s"} and call again. Nothing was charged.`;
    case "timeout":
    case "network":
      return `The API could not be reached (${error.message}). ${REFUNDED} Try again shortly.`;
    default:
      return `The API answered unexpectedly (${error.message}). ${REFUNDED}`;
  }
}
