import { TIME } from "../corpus/constants.ts";

/**
 * What an item looks like depends on its age at request time: during the blackout
 * (docs/upstream.md#rate-limits) it still shows first-fetch values. The state number keys the
 * JSON cache, so a cached item is rebuilt when its state changes.
 */
const ItemState = { settled: 0, blackout: 1, archived: 2 } as const;

export function itemState(created: number, threadCreated: number, now: number): number {
  let state = now < created + TIME.blackout ? ItemState.blackout : ItemState.settled;
  if (now - threadCreated > TIME.archiveAfter) state |= ItemState.archived;
  return state;
}

export const inBlackout = (state: number): boolean => (state & ItemState.blackout) !== 0;
export const isArchived = (state: number): boolean => (state & ItemState.archived) !== 0;
