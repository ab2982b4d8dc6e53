/**
 * Sorting helpers for the generator. Items are made in batches (per subreddit,
 * per thread) and then laid out globally by time, so that ids grow with time and
 * every index built by a single pass is already time-ordered.
 */
import type { Rng } from "./prng.ts";
import { intBetween } from "./prng.ts";

/** Permutation sorting items by (time, creation order): ties keep their creation order. */
export function timeOrder(times: Int32Array): Int32Array {
  const n = times.length;
  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    minTime = Math.min(minTime, times[i] as number);
    maxTime = Math.max(maxTime, times[i] as number);
  }
  const slot = 2 ** Math.ceil(Math.log2(n + 1));
  if ((maxTime - minTime + 1) * slot > Number.MAX_SAFE_INTEGER) throw new Error("corpus too large to order");
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = ((times[i] as number) - minTime) * slot + i;
  keys.sort();
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[k] = (keys[k] as number) % slot;
  return order;
}

/** Applies a permutation: out[k] = source[order[k]]. */
export function permute<T extends Int32Array | Uint8Array | Uint16Array>(source: T, order: Int32Array): T {
  const out = new (source.constructor as new (length: number) => T)(source.length);
  for (let k = 0; k < order.length; k++) out[k] = source[order[k] as number] as number;
  return out;
}

/** Increasing ids from `base`, with random gaps as other items take ids between ours. */
export function sequentialIds(rng: Rng, count: number, base: number, maxGap: number): Float64Array {
  const ids = new Float64Array(count);
  let next = base;
  for (let k = 0; k < count; k++) {
    next += intBetween(rng, 1, maxGap);
    ids[k] = next;
  }
  return ids;
}
