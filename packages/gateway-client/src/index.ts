export { createGatewayClient, type GatewayClient } from "./client.ts";
export { envelopeSchemaOf } from "./envelope.ts";
export { ERROR_KIND_BY_STATUS, type GatewayError, type GatewayErrorKind, parseRetryAfter } from "./errors.ts";
export type {
  CallOptions,
  Envelope,
  GatewayClientOptions,
  GatewayResult,
  OperationInput,
  ServiceMetaOf,
} from "./types.ts";
