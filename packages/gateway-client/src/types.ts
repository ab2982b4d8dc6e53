/**
 * The client's public types, all derived from `@rda/contracts` so they cannot drift from the API:
 * parameters are the `z.input` of each operation's params schema (what a caller may send), and a
 * success is the response body exactly as the wire carries it, `{data, _service}`.
 */
import type {
  CreditServiceMeta,
  ListServiceMeta,
  OPERATIONS,
  OperationData,
  OperationName,
} from "@rda/contracts";
import type { z } from "zod";
import type { GatewayError } from "./errors.ts";

/** What a caller may pass for an operation: strings or numbers where the API accepts both. */
export type OperationInput<N extends OperationName> = z.input<(typeof OPERATIONS)[N]["params"]>;

/** `_service` of list-style operations carries cursor and has_more; the others only credits (spec §2). */
export type ServiceMetaOf<N extends OperationName> = (typeof OPERATIONS)[N]["meta"] extends "list"
  ? ListServiceMeta
  : CreditServiceMeta;

/** The 200 body of an operation, unchanged from the wire. */
export interface Envelope<N extends OperationName> {
  data: OperationData<N>;
  _service: ServiceMetaOf<N>;
}

/** Expected failures are values, not exceptions: check `ok` before reading `value`. */
export type GatewayResult<T> =
  | { ok: true; value: T; requestId: string | null }
  | { ok: false; error: GatewayError };

export interface CallOptions {
  /** Overrides the client's key for this call (the MCP service passes each caller's own key). */
  apiKey?: string;
  /** Sent as x-request-id; the gateway echoes and logs it for correlation. */
  requestId?: string;
  signal?: AbortSignal;
}

export interface GatewayClientOptions {
  /** Origin of the API, optionally with a path prefix, e.g. https://api.example.com. */
  baseUrl: string;
  /** Default key for every call; may be omitted when every call passes its own. */
  apiKey?: string;
  /** Deadline for one call, connect to last body byte. Default 15 s. */
  timeoutMs?: number;
  /** Most sockets kept open to the gateway. Default 64. */
  connections?: number;
}
