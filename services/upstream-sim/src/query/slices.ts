import type { Groups } from "../corpus/types.ts";

/** A time-ordered run of item indexes: items[lo..hi). */
export interface Slice {
  readonly items: Int32Array;
  readonly lo: number;
  readonly hi: number;
}

export type Sort = "asc" | "desc";
export const SORTS: readonly Sort[] = ["asc", "desc"];

export const sliceSize = (slice: Slice): number => slice.hi - slice.lo;

export function groupSlice(groups: Groups, key: number): Slice {
  return { items: groups.items, lo: groups.offsets[key] as number, hi: groups.offsets[key + 1] as number };
}

export function wholeSlice(items: Int32Array): Slice {
  return { items, lo: 0, hi: items.length };
}

/** Bounds in absolute epoch seconds; both exclusive (docs/upstream.md#post-and-comment-search). */
export interface TimeBounds {
  readonly after?: number | undefined;
  readonly before?: number | undefined;
}

/**
 * Narrows a slice to after < created < before by binary search, and never past
 * `now`: items created later have not "arrived" yet.
 */
export function narrow(
  slice: Slice,
  created: Int32Array,
  anchor: number,
  bounds: TimeBounds,
  now: number,
): Slice {
  const upper = Math.min(bounds.before ?? Number.POSITIVE_INFINITY, now + 1) - anchor;
  const lower = (bounds.after ?? Number.NEGATIVE_INFINITY) - anchor;
  const lo = firstAbove(slice, created, lower, true);
  const hi = firstAbove(slice, created, upper, false);
  return { items: slice.items, lo, hi: Math.max(lo, hi) };
}

/** First position whose created is > bound (strict) or >= bound (not strict). */
function firstAbove(slice: Slice, created: Int32Array, bound: number, strict: boolean): number {
  let lo = slice.lo;
  let hi = slice.hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = created[slice.items[mid] as number] as number;
    if (strict ? value > bound : value >= bound) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Walks the slice in sort order and keeps up to `limit` accepted items. */
export function collect(
  slice: Slice,
  sort: Sort,
  limit: number,
  accept: (item: number) => boolean,
): number[] {
  const out: number[] = [];
  const step = sort === "asc" ? 1 : -1;
  for (let k = sort === "asc" ? slice.lo : slice.hi - 1; k >= slice.lo && k < slice.hi; k += step) {
    const item = slice.items[k] as number;
    if (accept(item)) out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
