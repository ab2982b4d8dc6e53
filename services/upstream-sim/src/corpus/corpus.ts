import { performance } from "node:perf_hooks";
import { buildUserIndex, fillSubredditMeta } from "./aggregate-stats.ts";
import { buildIndex } from "./build-index.ts";
import { SIZES } from "./constants.ts";
import { generateAuthors } from "./generate-authors.ts";
import { generateComments } from "./generate-comments.ts";
import { generatePosts } from "./generate-posts.ts";
import { generateSubreddits } from "./generate-subreddits.ts";
import { hashSeed, mulberry32 } from "./prng.ts";
import type { Corpus } from "./types.ts";

export interface CorpusOptions {
  /** Seed of every random choice (default 42). */
  readonly seed?: number;
  /** Epoch seconds the corpus is laid out around (default: now). */
  readonly anchor?: number;
  /** Multiplies the default sizes (30,000 posts, ~300,000 comments, 3,000 users). */
  readonly scale?: number;
}

export const DEFAULT_SEED = 42;

/** Each stage draws from its own stream, so changing one stage leaves the others' data alone. */
const STAGE = { subreddits: 1, authors: 2, posts: 3, comments: 4 } as const;

export function generateCorpus(options: CorpusOptions = {}): Corpus {
  const started = performance.now();
  const seed = options.seed ?? DEFAULT_SEED;
  const anchor = Math.floor(options.anchor ?? Date.now() / 1000);
  const scale = checkScale(options.scale ?? 1);
  const stream = (stage: number) => mulberry32(hashSeed(seed, stage));
  const subreddits = generateSubreddits(stream(STAGE.subreddits), anchor);
  const pool = generateAuthors(stream(STAGE.authors), Math.max(60, Math.round(SIZES.users * scale)));
  const posts = generatePosts(stream(STAGE.posts), subreddits, pool, Math.round(SIZES.posts * scale));
  const comments = generateComments(stream(STAGE.comments), posts, subreddits, pool);
  fillSubredditMeta(subreddits, posts, comments, anchor);
  const users = buildUserIndex(pool.authors, posts, comments, anchor);
  return {
    seed,
    anchor,
    scale,
    subreddits,
    authors: pool.authors,
    posts,
    comments,
    index: buildIndex(subreddits, pool.authors, posts, comments),
    users,
    userByName: new Map(users.map((user) => [user.author.toLowerCase(), user])),
    generationMs: Math.round(performance.now() - started),
  };
}

function checkScale(scale: number): number {
  if (!(scale > 0 && scale <= SIZES.maxScale))
    throw new RangeError(`scale must be in (0, ${SIZES.maxScale}]`);
  return scale;
}
