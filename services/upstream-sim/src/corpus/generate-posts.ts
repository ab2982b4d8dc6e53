import { AUTHOR, ID_BASES, LinkKind, PostFlag, TIME } from "./constants.ts";
import type { AuthorPool } from "./generate-authors.ts";
import type { Rng } from "./prng.ts";
import { chance, cumulative, intBetween, logNormal, weightedIndex } from "./prng.ts";
import { permute, sequentialIds, timeOrder } from "./time-order.ts";
import type { PostTable, Subreddit } from "./types.ts";

/** Share of posts that repeat their neighbour's created_utc second (pagination must cope). */
const SAME_SECOND = 0.3;
const LINK_KINDS = [
  LinkKind.image,
  LinkKind.video,
  LinkKind.youtube,
  LinkKind.article,
  LinkKind.gallery,
  LinkKind.github,
];
const LINK_KIND_WEIGHTS = cumulative([45, 12, 10, 20, 8, 5]);

interface RawPosts {
  created: Int32Array;
  sub: Uint8Array;
  author: Int32Array;
  score: Int32Array;
  flags: Uint16Array;
  kind: Uint8Array;
  flair: Uint8Array;
}

export function generatePosts(
  rng: Rng,
  subs: readonly Subreddit[],
  pool: AuthorPool,
  target: number,
): PostTable {
  const counts = postsPerSubreddit(subs, target);
  const total = counts.reduce((sum, n) => sum + n, 0);
  const raw = allocate(total);
  let next = 0;
  subs.forEach((sub, s) => {
    for (const time of postTimes(rng, counts[s] ?? 0)) {
      raw.created[next] = time;
      fillAttributes(rng, raw, next++, sub, pool);
    }
  });
  return layOut(rng, raw);
}

/** Busier subreddits post more, roughly with the square root of their size. */
function postsPerSubreddit(subs: readonly Subreddit[], target: number): number[] {
  const weights = subs.map((sub) => Math.sqrt(sub.subscribers));
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => Math.max(5, Math.round((target * w) / sum)));
}

function allocate(n: number): RawPosts {
  return {
    created: new Int32Array(n),
    sub: new Uint8Array(n),
    author: new Int32Array(n),
    score: new Int32Array(n),
    flags: new Uint16Array(n),
    kind: new Uint8Array(n),
    flair: new Uint8Array(n),
  };
}

/** Sorted offsets over [-history, +future]; a share of them repeat the previous second. */
function postTimes(rng: Rng, count: number): Int32Array {
  const times = new Int32Array(count);
  const span = TIME.history + TIME.future;
  for (let i = 0; i < count; i++) times[i] = Math.floor(rng() * span) - TIME.history;
  times.sort();
  for (let i = 1; i < count; i++) if (chance(rng, SAME_SECOND)) times[i] = times[i - 1] as number;
  return times;
}

function fillAttributes(rng: Rng, raw: RawPosts, i: number, sub: Subreddit, pool: AuthorPool): void {
  const deleted = chance(rng, 0.04);
  raw.sub[i] = sub.index;
  raw.author[i] = deleted ? AUTHOR.deleted : weightedIndex(rng, pool.weights);
  raw.score[i] = Math.min(400_000, Math.floor(logNormal(rng, 1.8, 1.9)));
  raw.kind[i] = chance(rng, sub.selfShare)
    ? LinkKind.self
    : (LINK_KINDS[weightedIndex(rng, LINK_KIND_WEIGHTS)] ?? 0);
  raw.flair[i] = sub.flairs.length > 0 && chance(rng, 0.6) ? intBetween(rng, 1, sub.flairs.length) : 0;
  raw.flags[i] = postFlags(rng, deleted, sub.over18, raw.kind[i] === LinkKind.self);
}

function postFlags(rng: Rng, deleted: boolean, over18: boolean, self: boolean): number {
  let flags = 0;
  if (self) flags |= PostFlag.self;
  if (deleted) flags |= PostFlag.deleted;
  else if (chance(rng, 0.045)) flags |= PostFlag.removed;
  if (over18 || chance(rng, 0.01)) flags |= PostFlag.over18;
  if (chance(rng, 0.009)) flags |= PostFlag.spoiler;
  if (chance(rng, 0.06)) flags |= PostFlag.locked;
  if (chance(rng, 0.03)) flags |= PostFlag.edited;
  if (chance(rng, 0.05)) flags |= PostFlag.originalContent;
  if (!deleted && chance(rng, 0.0025)) flags |= PostFlag.stickied | PostFlag.distinguished;
  return flags;
}

/** Orders posts by time, gives them growing ids and picks crosspost parents among older posts. */
function layOut(rng: Rng, raw: RawPosts): PostTable {
  const order = timeOrder(raw.created);
  const count = order.length;
  const crosspost = new Int32Array(count).fill(-1);
  for (let k = 1; k < count; k++) if (chance(rng, 0.07)) crosspost[k] = intBetween(rng, 0, k - 1);
  const created = permute(raw.created, order);
  return {
    count,
    idNum: sequentialIds(rng, count, ID_BASES.post, 40),
    created,
    sub: permute(raw.sub, order),
    author: permute(raw.author, order),
    score: permute(raw.score, order),
    flags: permute(raw.flags, order),
    kind: permute(raw.kind, order),
    flair: permute(raw.flair, order),
    crosspost,
    numComments: new Int32Array(count),
    lastComment: created.slice(),
  };
}
