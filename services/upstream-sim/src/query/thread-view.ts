import type { Corpus } from "../corpus/types.ts";
import type { Slice } from "./slices.ts";
import { groupSlice, narrow } from "./slices.ts";

/**
 * One post's comment tree as it stands at `now`: comments created later are not
 * there yet. Children are time-ordered, so the visible ones are a prefix.
 */
export class ThreadView {
  readonly #corpus: Corpus;
  readonly #now: number;
  /** All comments of the thread have arrived: stored subtree sizes are exact. */
  readonly #complete: boolean;
  readonly #sizes = new Map<number, number>();

  constructor(corpus: Corpus, post: number, now: number) {
    this.#corpus = corpus;
    this.#now = now;
    this.#complete = corpus.anchor + (corpus.posts.lastComment[post] as number) <= now;
  }

  topLevel(post: number): Slice {
    return this.#visible(groupSlice(this.#corpus.index.topLevelByPost, post));
  }

  children(comment: number): Slice {
    return this.#visible(groupSlice(this.#corpus.index.childrenByComment, comment));
  }

  /** The comment and its descendants that exist now. */
  subtreeSize(comment: number): number {
    if (this.#complete) return this.#corpus.comments.subtree[comment] as number;
    const known = this.#sizes.get(comment);
    if (known !== undefined) return known;
    const kids = this.children(comment);
    let size = 1;
    for (let k = kids.lo; k < kids.hi; k++) size += this.subtreeSize(kids.items[k] as number);
    this.#sizes.set(comment, size);
    return size;
  }

  sliceTotal(slice: Slice): number {
    let total = 0;
    for (let k = slice.lo; k < slice.hi; k++) total += this.subtreeSize(slice.items[k] as number);
    return total;
  }

  #visible(slice: Slice): Slice {
    if (this.#complete) return slice;
    return narrow(slice, this.#corpus.comments.created, this.#corpus.anchor, {}, this.#now);
  }
}
