/**
 * Field names a caller may list in `fields`. docs/upstream.md#selectable-fields lists what the upstream can project;
 * the rest of the common object fields (§3) are fetched unprojected and trimmed by the adapter.
 */

const COMMON_SELECTABLE = [
  "author",
  "author_fullname",
  "author_flair_text",
  "created_utc",
  "distinguished",
  "id",
  "retrieved_on",
  "subreddit",
  "subreddit_id",
  "score",
] as const;

export const UPSTREAM_SELECTABLE_FIELDS = {
  post: new Set<string>([
    ...COMMON_SELECTABLE,
    "crosspost_parent",
    "link_flair_text",
    "num_comments",
    "over_18",
    "post_hint",
    "selftext",
    "spoiler",
    "title",
    "url",
  ]),
  comment: new Set<string>([...COMMON_SELECTABLE, "body", "link_id", "parent_id"]),
} as const;

const COMMON_OTHER = [
  "name",
  "created",
  "subreddit_name_prefixed",
  "subreddit_type",
  "permalink",
  "ups",
  "downs",
  "stickied",
  "locked",
  "archived",
  "edited",
  "gilded",
  "total_awards_received",
  "_meta",
] as const;

/** Every field that `fields` may name; anything else is a typo and answered with 400. */
export const KNOWN_FIELDS = {
  post: new Set<string>([
    ...UPSTREAM_SELECTABLE_FIELDS.post,
    ...COMMON_OTHER,
    "subreddit_subscribers",
    "url_overridden_by_dest",
    "domain",
    "is_self",
    "is_video",
    "thumbnail",
    "upvote_ratio",
    "hide_score",
    "pinned",
    "link_flair_type",
    "num_crossposts",
    "removed_by_category",
    "suggested_sort",
  ]),
  comment: new Set<string>([
    ...UPSTREAM_SELECTABLE_FIELDS.comment,
    ...COMMON_OTHER,
    "score_hidden",
    "controversiality",
    "is_submitter",
    "collapsed",
    "collapsed_reason_code",
    "depth",
  ]),
} as const;
