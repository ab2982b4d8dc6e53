/** The documented selectable fields (docs/upstream.md#selectable-fields). */
const COMMON = [
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
];

export const SELECTABLE = {
  posts: new Set([
    ...COMMON,
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
  comments: new Set([...COMMON, "body", "link_id", "parent_id"]),
  /** "(and _meta fields)": we take that as the `_meta` object as a whole. */
  subreddits: new Set([
    "created_utc",
    "description",
    "public_description",
    "display_name",
    "id",
    "over18",
    "retrieved_on",
    "subscribers",
    "title",
    "_meta",
  ]),
} as const;

/** Exactly the requested keys, in the requested order; a key the item lacks is null. */
export function project(item: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = item[field] ?? null;
  return out;
}
