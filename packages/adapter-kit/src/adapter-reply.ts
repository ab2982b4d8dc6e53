/**
 * The replies an adapter operation returns, framed for the gateway (contracts/adapter-frame.ts). An
 * expected failure is a reply outcome the gateway maps to 400, 429 global or 502; only a bug throws.
 */
import { type AdapterReplyMeta, encodeAdapterReply } from "@rda/contracts";
import type { UpstreamFailure } from "@rda/upstream-client";

/**
 * List operations give `cursor` and `has_more`; the others give nothing beyond the data. `data` is
 * JSON text, or the upstream's own bytes of it when they pass through unchanged.
 */
export function okReply(
  data: string | Uint8Array,
  list?: { cursor: number | null; has_more: boolean },
): Uint8Array {
  const meta: AdapterReplyMeta = list ? { outcome: "ok", ...list } : { outcome: "ok" };
  return encodeAdapterReply(meta, data);
}

export function badRequestReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "bad_request", message });
}

/** The request's window held more than it may read (docs/api.md#activity): ours, not the upstream's refusal. */
export function tooLargeReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "too_large", message });
}

export function unavailableReply(message: string): Uint8Array {
  return encodeAdapterReply({ outcome: "unavailable", message });
}

/** Maps a classified upstream failure to the reply outcome the gateway turns into 400/429/502. */
export function failureReply(failure: UpstreamFailure): Uint8Array {
  if (failure.outcome === "rate_limited" || failure.outcome === "budget_spent") {
    const { outcome, message, retry_after_seconds } = failure;
    return encodeAdapterReply({ outcome, message, retry_after_seconds });
  }
  return encodeAdapterReply({ outcome: failure.outcome, message: failure.message });
}
