/**
 * Compact, column-oriented corpus. Posts and comments live in typed arrays in
 * created_utc order (ids grow with time, as on Reddit); full JSON objects are
 * built per request from these columns and a per-item text seed.
 */
export interface Rule {
  readonly kind: "link" | "comment" | "all";
  readonly priority: number;
  readonly short_name: string;
  readonly description: string;
  readonly violation_reason: string;
  readonly created_utc: number;
}

export interface SubredditMeta {
  readonly num_posts: number;
  readonly num_comments: number;
  readonly earliest_post_at: number | null;
  readonly earliest_comment_at: number | null;
}

export interface Subreddit {
  readonly index: number;
  readonly name: string;
  readonly id: string;
  readonly title: string;
  readonly publicDescription: string;
  readonly description: string;
  readonly subscribers: number;
  readonly createdUtc: number;
  readonly retrievedOn: number;
  readonly over18: boolean;
  readonly topics: readonly string[];
  readonly flairs: readonly string[];
  readonly selfShare: number;
  readonly automod: boolean;
  readonly suggestedSort: string | null;
  readonly rules: readonly Rule[];
  meta: SubredditMeta;
}

export interface Author {
  readonly name: string;
  /** Account id without "t2_"; null only for the "[deleted]" placeholder. */
  readonly accountId: string | null;
  /** False for authors deliberately missing from the user index. */
  readonly indexed: boolean;
  /** The id the user index reports: null for accounts "inactive in recent years". */
  readonly indexId: string | null;
  readonly flair: string | null;
  readonly premium: boolean;
}

/** Created times are stored as signed offsets from the anchor, in seconds. */
export interface PostTable {
  readonly count: number;
  readonly idNum: Float64Array;
  readonly created: Int32Array;
  readonly sub: Uint8Array;
  readonly author: Int32Array;
  readonly score: Int32Array;
  readonly flags: Uint16Array;
  readonly kind: Uint8Array;
  readonly flair: Uint8Array;
  readonly crosspost: Int32Array;
  /** Size of the post's whole comment tree. */
  readonly numComments: Int32Array;
  /** Offset of the post's newest comment (its own offset when it has none). */
  readonly lastComment: Int32Array;
}

export interface CommentTable {
  readonly count: number;
  readonly idNum: Float64Array;
  readonly created: Int32Array;
  readonly post: Int32Array;
  /** Index of the parent comment, -1 for a top-level comment. */
  readonly parent: Int32Array;
  readonly author: Int32Array;
  readonly score: Int32Array;
  readonly flags: Uint8Array;
  readonly depth: Uint16Array;
  /** The comment plus all its descendants. */
  readonly subtree: Int32Array;
}

/** Items grouped by a key (CSR): group g is items[offsets[g]..offsets[g+1]), in time order. */
export interface Groups {
  readonly offsets: Int32Array;
  readonly items: Int32Array;
}

export interface CorpusIndex {
  readonly subByName: ReadonlyMap<string, number>;
  readonly authorByName: ReadonlyMap<string, number>;
  readonly allPosts: Int32Array;
  readonly allComments: Int32Array;
  readonly topLevelComments: Int32Array;
  readonly postsBySub: Groups;
  readonly postsByAuthor: Groups;
  readonly commentsBySub: Groups;
  readonly commentsByAuthor: Groups;
  readonly commentsByPost: Groups;
  readonly topLevelByPost: Groups;
  readonly childrenByComment: Groups;
}

export interface UserMeta {
  readonly num_posts: number;
  readonly num_comments: number;
  readonly post_karma: number;
  readonly comment_karma: number;
  readonly total_karma: number;
  readonly earliest_post_at: number | null;
  readonly earliest_comment_at: number | null;
  readonly last_post_at: number | null;
  readonly last_comment_at: number | null;
  readonly post_stats_updated_at: number;
  readonly comment_stats_updated_at: number;
}

export interface UserRecord {
  readonly author: string;
  readonly id: string | null;
  readonly _meta: UserMeta;
}

export interface Corpus {
  readonly seed: number;
  /** Epoch seconds the corpus is laid out around (the simulator's start). */
  readonly anchor: number;
  readonly scale: number;
  readonly subreddits: readonly Subreddit[];
  readonly authors: readonly Author[];
  readonly posts: PostTable;
  readonly comments: CommentTable;
  readonly index: CorpusIndex;
  /** The user index, sorted by author name (lowercase). */
  readonly users: readonly UserRecord[];
  readonly userByName: ReadonlyMap<string, UserRecord>;
  readonly generationMs: number;
}
