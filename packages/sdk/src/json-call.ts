/**
 * One JSON request to a resource endpoint (exports, monitors) with the client's key, request id,
 * timeout and abort signal; the answer as a value: `{data, _service}` on success, else the API's
 * `{error}` as a GatewayError. The operations of OPERATIONS go through client.ts instead.
 */
import { httpError, transportError } from "./errors.ts";
import type { GatewayResult } from "./types.ts";

/** Per call: another key than the client's, the request id to log, a signal to stop waiting. */
export interface ResourceCallOptions {
  apiKey?: string;
  requestId?: string;
  signal?: AbortSignal;
}

export interface ResourceClientOptions {
  prefix: string;
  apiKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** The wire body of a success: the answer and what it cost. */
export interface ResourceAnswer<T> {
  data: T;
  _service: { credits_used: number; credits_remaining: number };
}

export function createResourceCaller(options: ResourceClientOptions) {
  const send = async (method: Method, path: string, body: unknown, call: ResourceCallOptions = {}) => {
    const headers: Record<string, string> = { accept: "application/json" };
    const apiKey = call.apiKey ?? options.apiKey;
    if (apiKey !== undefined) headers["x-api-key"] = apiKey;
    if (call.requestId !== undefined) headers["x-request-id"] = call.requestId;
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await options.fetch(`${options.prefix}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: call.signal ? anySignal(call.signal, timeout) : timeout,
      });
      return { ok: true as const, response };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false as const, error: transportError("network", `cannot reach the API: ${reason}`) };
    }
  };
  const request = async <T>(
    method: Method,
    path: string,
    body: unknown,
    call?: ResourceCallOptions,
  ): Promise<GatewayResult<ResourceAnswer<T>>> => {
    const sent = await send(method, path, body, call);
    if (!sent.ok) return sent;
    const { response } = sent;
    const parsed = parse(await response.text());
    if (response.status >= 300) return { ok: false, error: errorOf(response, parsed) };
    return {
      ok: true,
      value: parsed as unknown as ResourceAnswer<T>,
      requestId: response.headers.get("x-request-id"),
    };
  };
  return { send, request };
}

export function errorOf(response: Response, parsed: Record<string, unknown> | undefined) {
  const message =
    typeof parsed?.error === "string" ? parsed.error : `the API answered HTTP ${response.status}`;
  return httpError(response.status, message, response.headers, parsed);
}

/** Either signal aborts; AbortSignal.any is not in every runtime the SDK supports. */
function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener("abort", abort, { once: true });
  b.addEventListener("abort", abort, { once: true });
  return controller.signal;
}

export function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
