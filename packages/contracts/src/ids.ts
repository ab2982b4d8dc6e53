/** Reddit item ids: base36, optionally prefixed with their kind (`t3_` post, `t1_` comment). */

export const ITEM_KIND_PREFIX = { post: "t3_", comment: "t1_" } as const;
export type ItemKind = keyof typeof ITEM_KIND_PREFIX;

/** Ids of at most 13 base36 digits cover every id the site can issue for centuries. */
const BARE_ID = /^[0-9a-z]{1,13}$/;

/** Returns the bare lowercase id, or undefined when `raw` is not an id of that kind. */
export function normaliseItemId(raw: string, kind: ItemKind): string | undefined {
  let id = raw.trim().toLowerCase();
  const prefix = ITEM_KIND_PREFIX[kind];
  if (id.startsWith(prefix)) id = id.slice(prefix.length);
  return BARE_ID.test(id) ? id : undefined;
}

/** Only the first 100 ids of a batch are used (docs/api.md#batch-mode). */
export const MAX_IDS_PER_BATCH = 100;
