/**
 * Final answers the adapters keep (docs/upstream.md#cached-answers-and-the-budget): each ok reply
 * whose upstream answers may all be served again is kept, as the very frame the adapter sent, under
 * the name of the request it answers (`answerRequestHash`). After admission the gateway reads it in
 * one GET and splices it as it would the adapter's reply, so a cache hit costs no adapter round trip.
 *
 * The frame's head says when the upstream produced it (`fetched_at_ms`, the answer's `Age`) and how
 * long it may be served (`max_age_s`); the caller's `Cache-Control` can only shorten that, and
 * `no-cache` skips the read. The cache is an optimisation: an unreadable one is a miss.
 */
import type { AdapterOperation } from "@rda/contracts";
import { answerRequestHash, type Redis, type UpstreamCacheKeys } from "@rda/service-kit";
import { type AdapterData, readAdapterFrame } from "./adapter-client.ts";
import type { GatewayMetrics } from "./metrics.ts";

export interface CachedAnswerRequest {
  readonly operation: AdapterOperation;
  readonly params: unknown;
  /** The caller's `Cache-Control` bound (0: `no-cache`, which the cache never answers). */
  readonly maxAgeS: number | undefined;
}

export interface CachedAnswers {
  /** The kept answer, young enough for it and for its caller; undefined otherwise. */
  read(request: CachedAnswerRequest): Promise<AdapterData | undefined>;
}

export function createCachedAnswers(deps: {
  redis: Redis;
  keys: UpstreamCacheKeys;
  metrics: GatewayMetrics;
}): CachedAnswers {
  const { redis, keys, metrics } = deps;
  const counted = (outcome: "hit" | "miss" | "error", data?: AdapterData) => {
    metrics.cachedAnswerLookups.inc({ outcome });
    return data;
  };
  return {
    async read({ operation, params, maxAgeS }) {
      if (maxAgeS === 0) return undefined;
      const key = keys.answer(answerRequestHash(operation, params));
      const frame = await redis.getBuffer(key).catch(() => "error" as const);
      if (frame === "error") return counted("error");
      if (frame === null) return counted("miss");
      const step = readAdapterFrame(frame);
      if (!step.ok || !servable(step.value, maxAgeS)) return counted("miss");
      return counted("hit", step.value);
    },
  };
}

function servable(answer: AdapterData, callerMaxAgeS: number | undefined): boolean {
  const { fetchedAtMs, maxAgeS } = answer;
  if (fetchedAtMs === undefined || maxAgeS === undefined) return false;
  const boundS = Math.min(maxAgeS, callerMaxAgeS ?? Number.POSITIVE_INFINITY);
  return Date.now() - fetchedAtMs <= boundS * 1000;
}
