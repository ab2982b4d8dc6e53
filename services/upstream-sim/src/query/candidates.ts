import type { Groups } from "../corpus/types.ts";
import type { Slice } from "./slices.ts";
import { groupSlice, sliceSize } from "./slices.ts";

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

/** An indexed filter on one group (an author, a post...): its slice, and the same test as a predicate. */
export function groupFilter(groups: Groups, key: number, keyOf: (item: number) => number): Candidate {
  return { slice: groupSlice(groups, key), accept: (item) => keyOf(item) === key };
}

/** A group filter looked up by name (case-insensitive); "none" for an unknown name. */
export function namedFilter(
  names: ReadonlyMap<string, number>,
  name: string,
  groups: Groups,
  keyOf: (item: number) => number,
): Filter {
  const key = names.get(name.toLowerCase());
  return key === undefined ? "none" : groupFilter(groups, key, keyOf);
}
