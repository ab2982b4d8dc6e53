import type { Slice } from "./slices.ts";
import { sliceSize } from "./slices.ts";

/** An indexed filter: the items it allows, and the same test as a predicate. */
export interface Candidate {
  readonly slice: Slice;
  readonly accept: (item: number) => boolean;
}

/** A search filter: indexed, a plain predicate, or "none" when it can match nothing. */
export type Filter = Candidate | ((item: number) => boolean) | "none";

/**
 * Chooses the smallest indexed slice to walk and checks every other filter on
 * each item, so no request scans the whole corpus when an index applies.
 * Undefined when some filter can match nothing (an unknown author, say).
 */
export function pickCandidate(filters: readonly Filter[], everything: Slice): Candidate | undefined {
  if (filters.includes("none")) return undefined;
  const indexed = filters.filter((f): f is Candidate => typeof f === "object");
  const smallest = indexed.reduce<Slice>(
    (best, candidate) => (sliceSize(candidate.slice) < sliceSize(best) ? candidate.slice : best),
    everything,
  );
  const tests = filters.map((f) => (typeof f === "object" ? f.accept : (f as (item: number) => boolean)));
  return { slice: smallest, accept: (item) => tests.every((test) => test(item)) };
}
