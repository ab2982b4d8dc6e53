import { AUTHOR, TIME } from "./constants.ts";
import type { Author, CommentTable, PostTable, Subreddit, UserMeta, UserRecord } from "./types.ts";

interface Tally {
  count: number;
  karma: number;
  earliest: number | null;
  last: number | null;
}

const emptyTally = (): Tally => ({ count: 0, karma: 0, earliest: null, last: null });

/**
 * Tallies items per group (author or subreddit) over items created up to `until`
 * (absolute seconds). Items are in time order, so the scan stops at `until`.
 */
interface TallySource {
  readonly count: number;
  readonly created: Int32Array;
  readonly score: Int32Array;
}

function tallyBy(
  groupCount: number,
  items: TallySource,
  keyOf: (item: number) => number,
  anchor: number,
  until: number,
): Tally[] {
  const tallies = Array.from({ length: groupCount }, emptyTally);
  for (let i = 0; i < items.count; i++) {
    const created = anchor + (items.created[i] as number);
    if (created > until) break;
    const tally = tallies[keyOf(i)] as Tally;
    tally.count += 1;
    tally.karma += items.score[i] as number;
    tally.earliest ??= created;
    tally.last = created;
  }
  return tallies;
}

/**
 * The user index (docs/upstream.md#response-shapes): one record per indexed author, with `_meta`
 * computed from that author's own items, as of `*_stats_updated_at`.
 */
export function buildUserIndex(
  authors: readonly Author[],
  posts: PostTable,
  comments: CommentTable,
  anchor: number,
): UserRecord[] {
  const postStatsAt = anchor - TIME.postStatsLag;
  const commentStatsAt = anchor - TIME.commentStatsLag;
  // Both snapshots are older than the blackout, so the scores summed are final ones.
  const postTallies = tallyBy(authors.length, posts, (p) => posts.author[p] as number, anchor, postStatsAt);
  const commentAuthor = (c: number) => comments.author[c] as number;
  const commentTallies = tallyBy(authors.length, comments, commentAuthor, anchor, commentStatsAt);
  const records: UserRecord[] = [];
  authors.forEach((author, i) => {
    if (!author.indexed || i === AUTHOR.deleted) return;
    const meta = userMeta(postTallies[i] as Tally, commentTallies[i] as Tally, postStatsAt, commentStatsAt);
    records.push({ author: author.name, id: author.indexId, _meta: meta });
  });
  return records.sort((a, b) => compareNames(a.author, b.author));
}

export function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function userMeta(posts: Tally, comments: Tally, postStatsAt: number, commentStatsAt: number): UserMeta {
  return {
    num_posts: posts.count,
    num_comments: comments.count,
    post_karma: posts.karma,
    comment_karma: comments.karma,
    total_karma: posts.karma + comments.karma,
    earliest_post_at: posts.earliest,
    earliest_comment_at: comments.earliest,
    last_post_at: posts.last,
    last_comment_at: comments.last,
    post_stats_updated_at: postStatsAt,
    comment_stats_updated_at: commentStatsAt,
  };
}

/** Subreddit `_meta` aggregates over the items that exist at the anchor. */
export function fillSubredditMeta(
  subs: readonly Subreddit[],
  posts: PostTable,
  comments: CommentTable,
  anchor: number,
): void {
  const postTallies = tallyBy(subs.length, posts, (p) => posts.sub[p] as number, anchor, anchor);
  const commentSub = (c: number) => posts.sub[comments.post[c] as number] as number;
  const commentTallies = tallyBy(subs.length, comments, commentSub, anchor, anchor);
  for (const sub of subs) {
    const p = postTallies[sub.index] as Tally;
    const c = commentTallies[sub.index] as Tally;
    sub.meta = {
      num_posts: p.count,
      num_comments: c.count,
      earliest_post_at: p.earliest,
      earliest_comment_at: c.earliest,
    };
  }
}
