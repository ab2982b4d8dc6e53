/**
 * One call of a monitors or exports route, as MANAGEMENT_ROUTES declares it (method, path,
 * `Idempotency-Key`), with the client's key, request id, timeout, abort signal and retry policy:
 * the answer as a value, `{data, _service}` on success, else the API's `{error}` as a
 * GatewayError. The operations of OPERATIONS go through client.ts instead; both send through
 * transport.ts and retry through retry.ts.
 */
import { httpError } from "./errors.ts";
import { MANAGEMENT_ROUTES } from "./generated/operations.ts";
import { buildRequestPath } from "./request-path.ts";
import { idempotencyKeyFor, retryPolicy, withRetries } from "./retry.ts";
import { type Answer, attempt, callHeaders, textOf } from "./transport.ts";
import type { GatewayResult, RetryOptions } from "./types.ts";

/** Per call: another key than the client's, the request id to log, a signal to stop waiting. */
export interface ResourceCallOptions {
  apiKey?: string;
  requestId?: string;
  signal?: AbortSignal;
  /**
   * Overrides the client's retry policy for this call; false turns it off. Which failures a call
   * is retried after depends on its route (see the SDK's README, "Retries").
   */
  retry?: RetryOptions | false;
}

/** The options of a call whose route takes `Idempotency-Key`: creating, starting or resuming work. */
export interface IdempotentCallOptions extends ResourceCallOptions {
  /**
   * Sent as `Idempotency-Key`, the same on every retry of this call; generated when retries are
   * on and none is given. The API answers a repeat under the same key (and the same body) with
   * the first answer, so nothing is created, started or charged twice (docs/api.md#idempotency).
   */
  idempotencyKey?: string;
}

/** A monitors or exports route, by operationId. */
export type ManagementRouteName = keyof typeof MANAGEMENT_ROUTES;

/** A route's call options: with `idempotencyKey` where the route's declaration says it takes one. */
export type CallOptionsOf<R extends ManagementRouteName> =
  (typeof MANAGEMENT_ROUTES)[R]["idempotent"] extends true ? IdempotentCallOptions : ResourceCallOptions;

export interface ResourceClientOptions {
  prefix: string;
  apiKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
  retry?: RetryOptions;
}

/** The wire body of a success: the answer and what it cost. */
export interface ResourceAnswer<T> {
  data: T;
  _service: { credits_used: number; credits_remaining: number };
}

/** The route's path parameters and query, by their wire names; undefined and null ones are left out. */
type RouteParams = Record<string, string | number | null | undefined>;

export function createResourceCaller(options: ResourceClientOptions) {
  /** Every attempt of one call of `route`, each answer read by `read`. */
  const exchange = <T>(
    name: ManagementRouteName,
    params: RouteParams,
    body: unknown,
    call: IdempotentCallOptions,
    read: (answer: Answer) => GatewayResult<T>,
  ): Promise<GatewayResult<T>> => {
    const route = MANAGEMENT_ROUTES[name];
    const url = buildRequestPath(options.prefix, route, params);
    const policy = retryPolicy(options.retry, call.retry);
    const headers = callHeaders(call, options.apiKey);
    const idempotencyKey = idempotencyKeyFor(route, call.idempotencyKey, policy);
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    if (body !== undefined) headers["content-type"] = "application/json";
    // Serialized once: the API knows a retry under the same key as the same request by its bytes.
    const outgoing = {
      method: route.method,
      url,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    return withRetries(route, policy, call.signal, async () => {
      const sent = await attempt(options.fetch, outgoing, options.timeoutMs, call.signal);
      return sent.ok ? read(sent.value) : sent;
    });
  };
  /** A JSON answer in its `{data, _service}` envelope. */
  const request = <T>(
    name: ManagementRouteName,
    params: RouteParams,
    body: unknown,
    call: IdempotentCallOptions = {},
  ): Promise<GatewayResult<ResourceAnswer<T>>> =>
    exchange(name, params, body, call, (answer) => {
      const parsed = parse(textOf(answer));
      if (answer.status >= 300) return { ok: false, error: errorOf(answer, parsed) };
      return {
        ok: true,
        value: parsed as unknown as ResourceAnswer<T>,
        requestId: answer.headers.get("x-request-id"),
      };
    });
  return { exchange, request };
}

export function errorOf(answer: Answer, parsed: Record<string, unknown> | undefined) {
  const message = typeof parsed?.error === "string" ? parsed.error : `the API answered HTTP ${answer.status}`;
  return httpError(answer.status, message, answer.headers, parsed);
}

export function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
