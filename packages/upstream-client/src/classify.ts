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
  /** 429; `resetSeconds` from `x-ratelimit-reset` when the upstream sent a usable one. */
  | { readonly kind: "rate_limited"; readonly resetSeconds: number | undefined }
  | { readonly kind: "bad_request"; readonly reason: string }
  | { readonly kind: "unavailable"; readonly reason: string };

import { locateDataBytes } from "./data-bytes.ts";
import type { UpstreamBody } from "./types.ts";

/** The upstream's busy answers (docs/upstream.md#errors-and-busy-answers), seen and documented. */
const BUSY_MESSAGE = /slow down|timed out|timeout/i;

export function classifyAnswer(
  status: number,
  resetHeader: unknown,
  body: Uint8Array | string,
): AttemptVerdict {
  if (status === 429) return { kind: "rate_limited", resetSeconds: parseResetSeconds(resetHeader) };
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const parsed = parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  if (parsed === undefined)
    return { kind: "transient", reason: `HTTP ${status} with a body that is not JSON` };
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

/** `x-ratelimit-reset`: seconds left in the upstream's 60 s window (docs/upstream.md#rate-limits). */
export function parseResetSeconds(header: unknown): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= 3600 ? seconds : undefined;
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
