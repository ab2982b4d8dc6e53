/**
 * A size-bounded cache of pre-serialized items. Entries carry the item's time
 * state (blackout, archived...) so a cached string is never served after the item
 * changed. Eviction is first-in-first-out: cheap, and good enough for hot pages.
 */
export class BoundedCache {
  readonly #entries = new Map<number, { state: number; json: string }>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(key: number, state: number): string | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.state === state ? entry.json : undefined;
  }

  set(key: number, state: number, json: string): void {
    if (this.#entries.size >= this.#capacity && !this.#entries.has(key)) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { state, json });
  }
}
