/**
 * One HTTP attempt with the runtime's fetch: a deadline for the whole answer (body included), the
 * caller's signal, and every failure to get an answer described as a `GatewayError` value.
 */
import { type GatewayError, transportError } from "./errors.ts";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export type Attempt = { ok: true; value: Answer } | { ok: false; error: GatewayError };

export async function attempt(
  fetchFn: typeof fetch,
  url: string,
  headers: Record<string, string>,
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
    const response = await fetchFn(url, { method: "GET", headers, signal: controller.signal });
    const text = await response.text();
    return { ok: true, value: { status: response.status, headers: response.headers, text } };
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

/** fetch reports "fetch failed"; the cause says why (ECONNREFUSED, a reset…). */
function describe(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
