/**
 * One HTTP attempt with the runtime's fetch: a deadline for the whole answer (body included), the
 * caller's signal, and every failure to get an answer described as a `GatewayError` value. Both the
 * data calls (client.ts) and the monitors and exports calls (json-call.ts) send through it.
 */
import { type GatewayError, transportError } from "./errors.ts";

/** What one attempt sends. */
export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Already serialized: every attempt of a call sends the same bytes. */
  body?: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The whole body as received; `textOf` reads it as text. */
  bytes: Uint8Array;
}

export type Attempt = { ok: true; value: Answer } | { ok: false; error: GatewayError };

/** What every call sends: the key (the call's own, else the client's) and the request id to log. */
export interface Caller {
  apiKey?: string;
  requestId?: string;
}

export function callHeaders(call: Caller, defaultKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  const apiKey = call.apiKey ?? defaultKey;
  if (apiKey !== undefined) headers["x-api-key"] = apiKey;
  if (call.requestId !== undefined) headers["x-request-id"] = call.requestId;
  return headers;
}

export async function attempt(
  fetchFn: typeof fetch,
  outgoing: Outgoing,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<Attempt> {
  // One controller for both reasons to stop, without AbortSignal.any (not in every runtime).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  callerSignal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (callerSignal?.aborted) controller.abort();
    const { method, url, headers, body } = outgoing;
    const response = await fetchFn(url, { method, headers, body, signal: controller.signal });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { ok: true, value: { status: response.status, headers: response.headers, bytes } };
  } catch (error) {
    if (timedOut)
      return { ok: false, error: transportError("timeout", `no complete answer within ${timeoutMs} ms`) };
    if (callerSignal?.aborted) return { ok: false, error: transportError("aborted", "the call was aborted") };
    const reason = error instanceof Error ? describe(error) : String(error);
    return { ok: false, error: transportError("network", `cannot reach the API: ${reason}`) };
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener("abort", onAbort);
  }
}

/** The body as UTF-8 text, as `Response.text()` reads it. */
export function textOf(answer: Answer): string {
  return new TextDecoder().decode(answer.bytes);
}

/** fetch reports "fetch failed"; the cause says why (ECONNREFUSED, a reset…). */
function describe(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
