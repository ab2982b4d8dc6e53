/**
 * The OpenAPI document's examples. Successful requests and responses are real: captured from the
 * whole stack over the upstream simulator by scripts/capture-openapi-examples.ts. Error bodies are
 * built from the error catalog with the gateway's own message rule, and the 400 names a parameter the
 * way the validating schema does. A test checks every example against its schema.
 */
import { ERRORS, type ErrorCode, errorBody, publicErrorMessage } from "./errors.ts";
import { parseHttpParams } from "./http-params.ts";
import captured from "./openapi-examples.json" with { type: "json" };
import { OPERATIONS, type OperationName } from "./operations.ts";
import { spendCapDetail } from "./spend-cap.ts";

export interface OperationExample {
  /** The request's parameters, path and query alike, as sent. */
  readonly params: Readonly<Record<string, string | number>>;
  /** The 200 body the gateway answered. */
  readonly response: unknown;
}

export const OPERATION_EXAMPLES: Readonly<Record<OperationName, OperationExample>> = captured;

/** A real 400: limit out of range on GET /v1/posts, described as the gateway describes it. */
function invalidParameterDetail(): string {
  const parsed = parseHttpParams(OPERATIONS.listPosts, { subreddit: "typescript", limit: "500" });
  if (parsed.ok) throw new Error("the example's out-of-range limit must fail validation");
  return parsed.error;
}

/** A cap refusal as the gateway words it, for a 50-credit cap. */
const SPEND_CAP_DETAIL = spendCapDetail("key_0123456789abcdef", { month: "2026-11", spent: 50, cap: 50 });

/** One example body per catalog code, as the gateway words it. */
export function errorExample(
  code: ErrorCode,
  topUpUrl: string,
  spendCapUrl = topUpUrl.replace(/\/[^/]*$/, "/keys"),
): ReturnType<typeof errorBody> {
  const detail =
    code === "invalid_parameter"
      ? invalidParameterDetail()
      : code === "spend_cap_reached"
        ? SPEND_CAP_DETAIL
        : undefined;
  const refunded = ERRORS[code].refunded && code !== "internal_error";
  return errorBody(code, publicErrorMessage(code, { detail, refunded, topUpUrl, spendCapUrl }));
}
