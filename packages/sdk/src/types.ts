/**
 * The SDK's public types. Parameters and bodies come from the generated contract files
 * (generated/), built from the same schemas the API validates with, so they cannot drift from it.
 * A success is the response body exactly as the wire carries it, `{data, _service}`.
 */
import type { GatewayError } from "./errors.ts";
import type { components } from "./generated/openapi.ts";
import type { OPERATIONS, OperationTypes } from "./generated/operations.ts";

type Schemas = components["schemas"];
export type Post = Schemas["Post"];
export type Comment = Schemas["Comment"];
export type Activity = Schemas["Activity"];
export type CommentTreeNode = Schemas["CommentTreeNode"];
export type MoreStub = Schemas["MoreStub"];
export type Community = Schemas["Community"];
export type CommunityRule = Schemas["CommunityRule"];
export type SubredditRules = Schemas["SubredditRules"];
export type UserProfile = Schemas["UserProfile"];
export type UserProfileResult = Schemas["UserProfileResult"];
export type Account = Schemas["Account"];
export type ListServiceMeta = Schemas["ListServiceMeta"];
export type CreditServiceMeta = Schemas["CreditServiceMeta"];

/** An operation's id, as in the API reference: `listPosts`, `getAccount`… */
export type OperationName = keyof typeof OPERATIONS;
/** The operations that page through a listing: posts and comments. */
export type PagedOperation = {
  [N in OperationName]: (typeof OPERATIONS)[N]["paginated"] extends true ? N : never;
}[OperationName];

/** What a caller may pass for an operation: strings or numbers where the API accepts both. */
export type OperationInput<N extends OperationName> = OperationTypes[N]["params"];

/** The 200 body of an operation, unchanged from the wire. */
export type Envelope<N extends OperationName> = OperationTypes[N]["response"];

/** `_service` of an operation: cursor and has_more on list-style operations, else only credits. */
export type ServiceMetaOf<N extends OperationName> = Envelope<N>["_service"];

/** Expected failures are values, not exceptions: check `ok` before reading `value`. */
export type GatewayResult<T> =
  | { ok: true; value: T; requestId: string | null }
  | { ok: false; error: GatewayError };

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. */
  retries: number;
  /** Longest wait before one retry. A longer `Retry-After` ends the retrying instead. Default 30 s. */
  maxDelayMs?: number;
  /** First backoff when the API gave no `Retry-After` (network errors); doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
}

export interface CallOptions {
  /** Overrides the client's key for this call (a server acting for many callers passes each one's key). */
  apiKey?: string;
  /** Sent as x-request-id; the gateway echoes and logs it for correlation. */
  requestId?: string;
  signal?: AbortSignal;
  /** Overrides the client's retry policy for this call; false turns it off. */
  retry?: RetryOptions | false;
  /**
   * Sent as `Idempotency-Key` on a call whose route takes it (every data call but `getAccount`),
   * the same on every retry of this call. Generated when retries are on and none is given.
   */
  idempotencyKey?: string;
}

export interface PageOptions extends CallOptions {
  /** Stop after this many pages (each costs 1 credit). Default: until `has_more` is false. */
  maxPages?: number;
}

export interface GatewayClientOptions {
  /** Origin of the API, optionally with a path prefix, e.g. https://api.example.com. */
  baseUrl: string;
  /** Default key for every call; may be omitted when every call passes its own. */
  apiKey?: string;
  /** Deadline of one attempt, from sending to the last body byte. Default 45 s (above the gateway's 35 s wait for the upstream). */
  timeoutMs?: number;
  /**
   * Retry on 429, 503, network errors and timeouts, where a retry cannot do the work twice: a call
   * whose route takes `Idempotency-Key` (under one key) or a free read after any of them, any
   * other call after a 429 only (see retry.ts). Default: no retries.
   */
  retry?: RetryOptions;
  /** The fetch to use; default the runtime's global fetch. */
  fetch?: typeof fetch;
}
