import { AUTHOR, CommentFlag, ID_BASES, PostFlag, TIME } from "./constants.ts";
import type { AuthorPool } from "./generate-authors.ts";
import type { Rng } from "./prng.ts";
import { chance, intBetween, logNormal, weightedIndex } from "./prng.ts";
import { permute, sequentialIds, timeOrder } from "./time-order.ts";
import type { CommentTable, PostTable, Subreddit } from "./types.ts";

const MAX_THREAD = 3000;

interface RawComments {
  created: Int32Array;
  post: Int32Array;
  parent: Int32Array;
  author: Int32Array;
  score: Int32Array;
  flags: Uint8Array;
}

interface Thread {
  readonly post: number;
  readonly start: number;
  readonly size: number;
  readonly automod: boolean;
}

export function generateComments(
  rng: Rng,
  posts: PostTable,
  subs: readonly Subreddit[],
  pool: AuthorPool,
): CommentTable {
  const sizes = threadSizes(rng, posts);
  const raw = allocate(sizes.reduce((sum, n) => sum + n, 0));
  let start = 0;
  for (let p = 0; p < posts.count; p++) {
    const size = sizes[p] ?? 0;
    const automod = size > 0 && (subs[posts.sub[p] as number]?.automod ?? false) && chance(rng, 0.25);
    fillThread(rng, raw, posts, pool, { post: p, start, size, automod });
    start += size;
  }
  return layOut(rng, raw, posts);
}

/** Heavy-tailed thread sizes averaging about 10, a few hundred at most. */
function threadSizes(rng: Rng, posts: PostTable): number[] {
  const sizes: number[] = [];
  for (let p = 0; p < posts.count; p++) {
    const hidden = (posts.flags[p] as number) & (PostFlag.deleted | PostFlag.removed);
    const size = Math.floor(logNormal(rng, 1.6, 1.3)) - 1;
    sizes.push(Math.min(MAX_THREAD, Math.max(0, hidden ? size >> 1 : size)));
  }
  return sizes;
}

function allocate(n: number): RawComments {
  return {
    created: new Int32Array(n),
    post: new Int32Array(n),
    parent: new Int32Array(n),
    author: new Int32Array(n),
    score: new Int32Array(n),
    flags: new Uint8Array(n),
  };
}

function fillThread(rng: Rng, raw: RawComments, posts: PostTable, pool: AuthorPool, thread: Thread): void {
  const delays = commentDelays(rng, thread);
  const postCreated = posts.created[thread.post] as number;
  const op = posts.author[thread.post] as number;
  for (let k = 0; k < thread.size; k++) {
    const i = thread.start + k;
    raw.created[i] = postCreated + 1 + Math.floor(delays[k] as number);
    raw.post[i] = thread.post;
    raw.parent[i] = parentOf(rng, thread, k);
    if (thread.automod && k === 0) fillAutomod(raw, i);
    else fillHuman(rng, raw, i, op, pool);
  }
}

/** Sorted delays: most comments come within hours, none after maxCommentDelay. */
function commentDelays(rng: Rng, thread: Thread): Float64Array {
  const delays = new Float64Array(thread.size);
  for (let k = 0; k < thread.size; k++) delays[k] = (TIME.maxCommentDelay - 2) * rng() ** 2.5;
  delays.sort();
  if (thread.automod) delays[0] = Math.min(delays[0] as number, intBetween(rng, 1, 10));
  return delays;
}

/** Replies favour recent comments, which grows realistic back-and-forth chains. */
function parentOf(rng: Rng, thread: Thread, k: number): number {
  if (k === 0 || chance(rng, 0.4)) return -1;
  const j = k - 1 - Math.floor(k * rng() ** 3);
  if (thread.automod && j === 0) return -1;
  return thread.start + Math.max(0, j);
}

function fillAutomod(raw: RawComments, i: number): void {
  raw.author[i] = AUTHOR.automoderator;
  raw.score[i] = 1;
  raw.flags[i] = CommentFlag.distinguished | CommentFlag.stickied;
}

function fillHuman(rng: Rng, raw: RawComments, i: number, op: number, pool: AuthorPool): void {
  const byOp = op > AUTHOR.automoderator && chance(rng, 0.11);
  const deleted = !byOp && chance(rng, 0.04);
  raw.author[i] = byOp ? op : deleted ? AUTHOR.deleted : weightedIndex(rng, pool.weights);
  raw.score[i] = commentScore(rng);
  let flags = deleted ? CommentFlag.deleted : chance(rng, 0.03) ? CommentFlag.removed : 0;
  if (chance(rng, 0.02)) flags |= CommentFlag.controversial;
  if (chance(rng, 0.02)) flags |= CommentFlag.edited;
  if (!deleted && chance(rng, 0.004)) flags |= CommentFlag.distinguished;
  raw.flags[i] = flags;
}

/** Mostly small positive scores, about 9% negative, a long tail up. */
function commentScore(rng: Rng): number {
  if (chance(rng, 0.09)) return -Math.max(1, Math.floor(logNormal(rng, 0.7, 1.2)));
  return Math.min(48_000, Math.floor(logNormal(rng, 0.9, 1.3)));
}

function layOut(rng: Rng, raw: RawComments, posts: PostTable): CommentTable {
  const order = timeOrder(raw.created);
  const count = order.length;
  const table: CommentTable = {
    count,
    idNum: sequentialIds(rng, count, ID_BASES.comment, 60),
    created: permute(raw.created, order),
    post: permute(raw.post, order),
    parent: remapParents(raw.parent, order),
    author: permute(raw.author, order),
    score: permute(raw.score, order),
    flags: permute(raw.flags, order),
    depth: new Uint16Array(count),
    subtree: new Int32Array(count),
  };
  fillTreeShape(table);
  fillPostTotals(table, posts);
  return table;
}

function remapParents(rawParent: Int32Array, order: Int32Array): Int32Array {
  const position = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) position[order[k] as number] = k;
  const parent = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const p = rawParent[order[k] as number] as number;
    parent[k] = p < 0 ? -1 : (position[p] as number);
  }
  return parent;
}

/** Parents precede children in time order, so one pass each way gives depth and subtree sizes. */
function fillTreeShape(table: CommentTable): void {
  for (let c = 0; c < table.count; c++) {
    const p = table.parent[c] as number;
    table.depth[c] = p < 0 ? 0 : (table.depth[p] as number) + 1;
  }
  for (let c = table.count - 1; c >= 0; c--) {
    table.subtree[c] = (table.subtree[c] as number) + 1;
    const p = table.parent[c] as number;
    if (p >= 0) table.subtree[p] = (table.subtree[p] as number) + (table.subtree[c] as number);
  }
}

function fillPostTotals(table: CommentTable, posts: PostTable): void {
  for (let c = 0; c < table.count; c++) {
    const p = table.post[c] as number;
    posts.numComments[p] = (posts.numComments[p] as number) + 1;
    posts.lastComment[p] = Math.max(posts.lastComment[p] as number, table.created[c] as number);
  }
}
