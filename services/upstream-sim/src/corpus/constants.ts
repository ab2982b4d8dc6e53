/** Time layout of the corpus and other fixed numbers, in seconds unless named otherwise. */
const HOUR = 3600;
const DAY = 24 * HOUR;

export const TIME = {
  hour: HOUR,
  day: DAY,
  /** docs/upstream.md#blackout: items are fetched a second time about 36 h after creation. */
  blackout: 36 * HOUR,
  /** How far back the corpus reaches from the anchor. */
  history: 180 * DAY,
  /** Posts keep "arriving" for this long after start, so the blackout never empties. */
  future: 7 * DAY,
  /** Comments are written at most this long after their post: below the blackout, so an
   * older post's comment count never changes again. */
  maxCommentDelay: 30 * HOUR,
  /** Reddit archives posts after six months. */
  archiveAfter: 180 * DAY,
  /** The user index's aggregates are recomputed rarely (docs/upstream.md#response-shapes); ours are
   * snapshots taken this long before the anchor, past the blackout, so they never drift. */
  postStatsLag: 2 * DAY,
  commentStatsLag: 3 * DAY,
} as const;

export const SIZES = {
  posts: 30_000,
  users: 3_000,
  maxScale: 10,
} as const;

export const ID_BASES = {
  post: Number.parseInt("1k00000", 36),
  comment: Number.parseInt("n800000", 36),
} as const;

export const PostFlag = {
  self: 1,
  deleted: 2,
  removed: 4,
  over18: 8,
  spoiler: 16,
  stickied: 32,
  locked: 64,
  edited: 128,
  distinguished: 256,
  originalContent: 512,
} as const;

export const CommentFlag = {
  deleted: 1,
  removed: 2,
  distinguished: 4,
  stickied: 8,
  controversial: 16,
  edited: 32,
  locked: 64,
} as const;

export const LinkKind = {
  self: 0,
  image: 1,
  video: 2,
  youtube: 3,
  article: 4,
  gallery: 5,
  github: 6,
} as const;
export type LinkKind = (typeof LinkKind)[keyof typeof LinkKind];

/** Author index 0 is Reddit's "[deleted]" placeholder; 1 is the AutoModerator bot. */
export const AUTHOR = { deleted: 0, automoderator: 1 } as const;
