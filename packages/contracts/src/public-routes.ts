/**
 * Every public route under /v1, one entry each: the data and account routes (OPERATIONS) and the
 * monitors and exports routes (MANAGEMENT_ROUTES), with what a caller and a test need of any of
 * them: method, path, the errors it may answer, credits, whether it takes `Idempotency-Key`, and
 * its rate-limit class. test/contract/routes.declared.test.ts checks each is served by the gateway,
 * documented in /openapi.json with its errors, and reachable in the SDK.
 */
import { ACCOUNT_ERROR_CODES, DATA_ERROR_CODES, type ErrorCode } from "./errors.ts";
import { MANAGEMENT_ROUTES } from "./management-routes.ts";
import { OPERATIONS, type OperationContract } from "./operations.ts";

/**
 * `key`: spends a token of the key's own bucket; `key_and_upstream`: that, and a request of the
 * upstream budget every key shares when the answer is not cached (`global_rate_limited`).
 */
export type RateLimitClass = "key" | "key_and_upstream";

export interface PublicRoute {
  readonly operationId: string;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly errors: readonly ErrorCode[];
  readonly credits: 0 | 1;
  readonly idempotent: boolean;
  readonly rateLimit: RateLimitClass;
}

/** The error codes an operation can answer, from the catalog's lists. */
export function errorCodesOf(operation: OperationContract): readonly ErrorCode[] {
  return operation.adapter === null ? ACCOUNT_ERROR_CODES : DATA_ERROR_CODES;
}

function dataRoute(operation: OperationContract): PublicRoute {
  const upstream = operation.adapter !== null;
  return {
    operationId: operation.operationId,
    method: "GET",
    path: operation.path,
    errors: errorCodesOf(operation),
    credits: operation.credits,
    // A charged data request takes Idempotency-Key; the free account route does not.
    idempotent: upstream,
    rateLimit: upstream ? "key_and_upstream" : "key",
  };
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  ...(Object.values(OPERATIONS) as OperationContract[]).map(dataRoute),
  ...MANAGEMENT_ROUTES,
];
