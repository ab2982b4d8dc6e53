import { binarySearch, fromBase36 } from "../corpus/base36.ts";
import type { Corpus } from "../corpus/types.ts";

/** Ids are base36 with an optional t3_/t1_ prefix (docs/upstream.md#post-and-comment-search). */
export type IdKind = "t3" | "t1";

/** The numeric id, or undefined when the text is not a (possibly prefixed) base36 id. */
export function parseId(text: string, kind: IdKind): number | undefined {
  const bare = text.trim().replace(new RegExp(`^${kind}_`, "i"), "");
  return fromBase36(bare);
}

/** Index of the post with this id that exists at `now`, or -1. */
export function findPost(corpus: Corpus, idNum: number, now: number): number {
  const i = binarySearch(corpus.posts.idNum, idNum);
  return i >= 0 && corpus.anchor + (corpus.posts.created[i] as number) <= now ? i : -1;
}

export function findComment(corpus: Corpus, idNum: number, now: number): number {
  const c = binarySearch(corpus.comments.idNum, idNum);
  return c >= 0 && corpus.anchor + (corpus.comments.created[c] as number) <= now ? c : -1;
}
