/**
 * A data request that admission refused only because the upstream's window is spent (429
 * `x-ratelimit-scope: global`) is still answered when its answer is in the shared response cache:
 * serving it costs the upstream nothing (docs/upstream.md#cached-answers-past-a-spent-window).
 *
 * Whether it is there is asked of the adapter itself, which runs the operation from the cache alone
 * (`cache_only`: no pacer turn, no claim, no upstream request; its first miss ends it). The cache key
 * is therefore derived by the one code that fills the cache, for operations that make several
 * upstream calls too, and the answer is in hand before anything is charged: it cannot be evicted
 * between the check and the serving. Only then is the request admitted again, without the reserve
 * and without a second token of the key's bucket (its refusal spent one); that admission still
 * checks the balance and the spend cap, and debits 1 as for any answer. When the answer is not all
 * cached, the caller gets the original refusal, with nothing charged.
 */
import type { AdapterOperation } from "@rda/contracts";
import type { AdapterData } from "../adapter-client.ts";
import { type Admitted, admitThroughBilling, type WithBucket } from "../admission.ts";
import type { GatewayContext } from "../context.ts";
import type { Step } from "../failure.ts";
import type { KeyInfo } from "../key-directory.ts";

export interface CacheOnlyRequest {
  readonly requestId: string;
  readonly operation: string;
  readonly credits: number;
  readonly adapter: AdapterOperation;
  readonly params: unknown;
  /** The caller's `Cache-Control` bound (0: `no-cache`, which the cache never answers). */
  readonly maxAgeS: number | undefined;
}

export interface FromCache {
  /** The second admission: admitted (debited), or its own refusal (nothing charged). */
  readonly admission: Step<Admitted> & WithBucket;
  /** The answer, to be served once admitted. */
  readonly data: AdapterData;
}

/** The cached answer and its admission; undefined when the answer is not (all) in the cache. */
export async function answerFromCache(
  ctx: GatewayContext,
  key: KeyInfo,
  request: CacheOnlyRequest,
): Promise<FromCache | undefined> {
  if (request.maxAgeS === 0) {
    ctx.metrics.spentWindowCacheProbes.inc({ outcome: "not_cached" });
    return undefined;
  }
  const probed = await ctx.adapters
    .call(request.adapter, request.requestId, request.params, {
      maxAgeS: request.maxAgeS,
      cacheOnly: true,
    })
    .catch(() => undefined);
  if (probed === undefined || !probed.ok) {
    ctx.metrics.spentWindowCacheProbes.inc({ outcome: "not_cached" });
    return undefined;
  }
  const admission = await admitThroughBilling(ctx, key, {
    requestId: request.requestId,
    operation: request.operation,
    credits: request.credits,
    tokens: 0,
    reserve: false,
  });
  ctx.metrics.spentWindowCacheProbes.inc({ outcome: admission.ok ? "served" : "refused" });
  return { admission, data: probed.value };
}
