import type { Corpus } from "../corpus/types.ts";
import type { TitleBook } from "./item-text.ts";

/** What item builders need: the corpus and its lazily filled title book. */
export interface RenderContext {
  readonly corpus: Corpus;
  readonly titles: TitleBook;
}

export type Json = Record<string, unknown>;

export function authorFields(corpus: Corpus, authorIndex: number): Json {
  const author = corpus.authors[authorIndex];
  if (author === undefined || author.accountId === null) {
    return { author: "[deleted]", author_flair_text: null, author_premium: false };
  }
  return {
    author: author.name,
    author_fullname: `t2_${author.accountId}`,
    author_flair_text: author.flair,
    author_premium: author.premium,
  };
}

export function subredditFields(corpus: Corpus, subIndex: number): Json {
  const sub = corpus.subreddits[subIndex];
  return {
    subreddit: sub?.name,
    subreddit_id: `t5_${sub?.id}`,
    subreddit_name_prefixed: `r/${sub?.name}`,
    subreddit_type: "public",
  };
}
