/** Reddit ids are base36 numbers; ours stay below 2^53 so a double holds them exactly. */
const BASE36 = /^[0-9a-z]{1,10}$/;

/** Parses a bare base36 id (lower or upper case); undefined when it is not one. */
export function fromBase36(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (!BASE36.test(lower)) return undefined;
  return Number.parseInt(lower, 36);
}

/** Index of `value` in an ascending array, or -1. */
export function binarySearch(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid] as number;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
