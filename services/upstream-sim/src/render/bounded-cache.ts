import type { Json } from "./context.ts";

/** A built item and, once asked for, its JSON text. */
export interface CachedItem {
  readonly item: Readonly<Json>;
  json: string | undefined;
}

/**
 * A size-bounded cache of built items. Entries carry the item's time state
 * (blackout, archived...) so an item is never served after it changed.
 * Eviction is first-in-first-out: cheap, and good enough for hot pages.
 */
export class BoundedCache {
  readonly #entries = new Map<number, { state: number; cached: CachedItem }>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(key: number, state: number, build: () => Json): CachedItem {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.state === state) return entry.cached;
    const cached: CachedItem = { item: Object.freeze(build()), json: undefined };
    this.#set(key, state, cached);
    return cached;
  }

  #set(key: number, state: number, cached: CachedItem): void {
    if (this.#entries.size >= this.#capacity && !this.#entries.has(key)) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { state, cached });
  }
}
