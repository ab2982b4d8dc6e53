/**
 * The shared response cache asked first, before admission (docs/upstream.md#cached-answers-and-the-budget):
 * an answer the cache holds costs the upstream nothing, so it is admitted without the upstream
 * reserve and is never refused for the upstream's spent window (429 `x-ratelimit-scope: global`).
 *
 * The adapter itself is asked to run the operation from the cache alone (`cache_only`: no pacer
 * turn, no claim, no upstream request; its first miss ends it). So the cache key is derived by the
 * one code that fills the cache, also for operations that make several upstream calls, and the
 * answer is in hand before admission: it cannot be evicted between the check and the serving, and
 * nothing is debited for it unless admission then admits the request (the key's bucket, balance and
 * spend cap apply as to any request; it costs 1 credit like any answer). On a miss the request goes
 * the ordinary way: reserve, debit, the adapter's paced call.
 */
import type { AdapterOperation } from "@rda/contracts";
import type { AdapterData } from "../adapter-client.ts";
import type { GatewayContext } from "../context.ts";

export interface CachedAnswerRequest {
  readonly adapter: AdapterOperation;
  readonly requestId: string;
  readonly params: unknown;
  /** The caller's `Cache-Control` bound (0: `no-cache`, which the cache never answers). */
  readonly maxAgeS: number | undefined;
}

/** The whole answer from the shared cache, or undefined: not (all) cached, or not to be asked. */
export async function cachedAnswer(
  ctx: GatewayContext,
  request: CachedAnswerRequest,
): Promise<AdapterData | undefined> {
  if (request.maxAgeS === 0) return undefined;
  const { adapter, requestId, params, maxAgeS } = request;
  const answer = await ctx.adapters
    .call(adapter, requestId, params, { maxAgeS, cacheOnly: true })
    .catch(() => undefined);
  const hit = answer?.ok === true;
  ctx.metrics.cacheFirstLookups.inc({ outcome: hit ? "hit" : "miss" });
  return hit ? answer.value : undefined;
}
