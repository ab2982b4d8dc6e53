/**
 * Classifies one upstream HTTP answer (docs/upstream.md#errors-and-busy-answers). Any body with an `error`
 * key is a failure whatever the status, 200 and 422 included; a body that is not JSON (Cloudflare 52x
 * pages, a truncated answer) is a failure too. Transient failures are retried; the others are final.
 */

export type AttemptVerdict =
  | { readonly kind: "ok"; readonly body: UpstreamBody }
  /** Worth another attempt: 5xx, non-JSON, connection trouble. */
  | { readonly kind: "transient"; readonly reason: string }
  /** The upstream's "slow down" answer: retried once with `limit` halved (docs/upstream.md#rate-limits). */
  | { readonly kind: "busy"; readonly reason: string }
  /** 429; `resetSeconds` until the window turns, when the upstream's headers said (rate-limit-headers.ts). */
  | { readonly kind: "rate_limited"; readonly resetSeconds: number | undefined }
  | { readonly kind: "bad_request"; readonly reason: string }
  /** Refused before reaching the API (a Cloudflare block page): final, never retried in a loop. */
  | { readonly kind: "blocked"; readonly reason: string }
  | { readonly kind: "unavailable"; readonly reason: string };

import { locateDataBytes } from "./data-bytes.ts";
import { classifyNonJson, describePage } from "./non-json-answer.ts";
import type { UpstreamBody } from "./types.ts";

/** The upstream's busy answers (docs/upstream.md#errors-and-busy-answers), seen and documented. */
const BUSY_MESSAGE = /slow down|timed out|timeout/i;

export function classifyAnswer(
  status: number,
  resetSeconds: number | undefined,
  body: Uint8Array | string,
): AttemptVerdict {
  if (status === 429) return { kind: "rate_limited", resetSeconds };
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const parsed = parseJson(text);
  if (parsed === undefined)
    return { kind: classifyNonJson(status, text), reason: describePage(status, text) };
  if (isRecord(parsed) && "error" in parsed) return classifyErrorBody(status, parsed.error);
  if (status >= 500) return { kind: "transient", reason: `HTTP ${status}` };
  if (status === 400) return { kind: "bad_request", reason: "HTTP 400" };
  if (status >= 300) return { kind: "unavailable", reason: `HTTP ${status}` };
  if (!isRecord(parsed) || !("data" in parsed)) {
    return { kind: "unavailable", reason: `HTTP ${status} with a JSON body that has no data key` };
  }
  const onlyData = Object.keys(parsed).length === 1;
  return {
    kind: "ok",
    body: { data: parsed.data, dataBytes: onlyData ? locateDataBytes(bytes) : undefined },
  };
}

function classifyErrorBody(status: number, error: unknown): AttemptVerdict {
  const message = typeof error === "string" ? error.slice(0, 200) : JSON.stringify(error)?.slice(0, 200);
  const reason = `HTTP ${status}: ${message}`;
  if (typeof error === "string" && BUSY_MESSAGE.test(error)) return { kind: "busy", reason };
  if (status >= 500) return { kind: "transient", reason };
  // The upstream refused a parameter: asking again would get the same answer.
  if (status === 400) return { kind: "bad_request", reason };
  return { kind: "unavailable", reason };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
