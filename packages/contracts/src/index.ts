export * from "./adapter-frame.ts";
export * from "./adapter-messages.ts";
export * from "./api-keys.ts";
export * from "./archive-params.ts";
export * from "./archive-responses.ts";
export * from "./archive-search-params.ts";
export * from "./billing-messages.ts";
export * from "./billing-rpc.ts";
export * from "./bounds.ts";
export * from "./dates.ts";
export * from "./errors.ts";
export * from "./exports.ts";
export * from "./fields.ts";
export * from "./http-params.ts";
export * from "./ids.ts";
export * from "./key-messages.ts";
export * from "./limits.ts";
export * from "./management-routes.ts";
export {
  accountIdSchema,
  OPERATION_ID_PATTERN,
  REQUEST_TOKEN_SECONDS,
  requestIdSchema,
  requestTokenSchema,
} from "./message-fields.ts";
export * from "./monitor-views.ts";
export * from "./monitors.ts";
export * from "./monitors-rpc.ts";
export * from "./openapi.ts";
export { errorExample, OPERATION_EXAMPLES, type OperationExample } from "./openapi-examples.ts";
export * from "./operations.ts";
export * from "./params.ts";
export * from "./payments.ts";
export { createPhraseMatcher, type PhraseMatcher } from "./phrase-matcher.ts";
export * from "./portal.ts";
export * from "./pricing.ts";
export * from "./public-routes.ts";
export * from "./reddit-objects.ts";
export * from "./responses.ts";
export * from "./result.ts";
export * from "./rpc.ts";
export * from "./spend-cap.ts";
export * from "./subjects.ts";
export * from "./upstream-budget.ts";
