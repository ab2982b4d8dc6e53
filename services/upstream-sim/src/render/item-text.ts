/**
 * Per-item text, rebuilt from the item's id and the corpus seed: storing 300,000
 * comment bodies would cost far more memory than regenerating a page of them.
 */

import type { Rng } from "../corpus/prng.ts";
import { hashSeed, mulberry32 } from "../corpus/prng.ts";
import { makeBody, makeSelftext, makeTitle, slugify } from "../corpus/text.ts";
import type { Corpus } from "../corpus/types.ts";

export const TextTag = { title: 11, selftext: 12, body: 13, link: 14, misc: 15 } as const;

export function itemRng(corpus: Corpus, tag: number, idNum: number): Rng {
  return mulberry32(hashSeed(corpus.seed, tag, idNum));
}

/** A stable pseudo-random number in [0, 1) for small per-item choices. */
export function itemFraction(corpus: Corpus, tag: number, idNum: number): number {
  return hashSeed(corpus.seed, tag, idNum) / 4294967296;
}

function topicsOfPost(corpus: Corpus, post: number): readonly string[] {
  return corpus.subreddits[corpus.posts.sub[post] as number]?.topics ?? [];
}

export class TitleBook {
  readonly #titles: (string | undefined)[];
  readonly #slugs: (string | undefined)[];
  readonly #corpus: Corpus;

  constructor(corpus: Corpus) {
    this.#corpus = corpus;
    this.#titles = new Array(corpus.posts.count);
    this.#slugs = new Array(corpus.posts.count);
  }

  title(post: number): string {
    const cached = this.#titles[post];
    if (cached !== undefined) return cached;
    const rng = itemRng(this.#corpus, TextTag.title, this.#corpus.posts.idNum[post] as number);
    const title = makeTitle(rng, topicsOfPost(this.#corpus, post));
    this.#titles[post] = title;
    return title;
  }

  slug(post: number): string {
    this.#slugs[post] ??= slugify(this.title(post));
    return this.#slugs[post];
  }
}

export function selftextOf(corpus: Corpus, post: number): string {
  const rng = itemRng(corpus, TextTag.selftext, corpus.posts.idNum[post] as number);
  return makeSelftext(rng, topicsOfPost(corpus, post));
}

export function bodyOf(corpus: Corpus, comment: number): string {
  const rng = itemRng(corpus, TextTag.body, corpus.comments.idNum[comment] as number);
  return makeBody(rng, topicsOfPost(corpus, corpus.comments.post[comment] as number));
}
