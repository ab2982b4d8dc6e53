/**
 * Epoch fields as integers, whatever the upstream sent (docs/upstream.md#assumptions). The upstream's
 * dumps store `created_utc` of old items (comments to 2014, posts to mid-2015) as a numeric string, and
 * nothing says the API converts it; the contract promises integers. So every epoch field that arrives as
 * a numeric string, or as a number with a fraction, is answered as whole epoch seconds.
 *
 * An epoch field is `created_utc`, `created`, `retrieved_on` or `edited` on the object, or any `_meta` key
 * ending in `_on`, `_at` or `_utc` (`retrieved_2nd_on`, `earliest_post_at`, …). Other keys are left alone,
 * and a value that is not a number in either form (`edited: false`, null) passes through.
 *
 * Objects are never changed in place: a coalesced upstream answer may be shared by several requests.
 */

const TOP_LEVEL_EPOCHS = ["created_utc", "created", "retrieved_on", "edited"] as const;
const META_EPOCH = /_(on|at|utc)$/;
const NUMERIC_TEXT = /^\s*\d+(\.\d+)?\s*$/;

type Row = Readonly<Record<string, unknown>>;

/** Whole epoch seconds from an integer, a fractional number or a numeric string; undefined otherwise. */
export function epochSeconds(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? Math.floor(value) : undefined;
  if (typeof value === "string" && NUMERIC_TEXT.test(value)) return Math.floor(Number(value));
  return undefined;
}

/** True when the value is an epoch that is not already an integer. */
function needsFix(value: unknown): boolean {
  if (typeof value === "number") return !Number.isInteger(value) && Number.isFinite(value);
  return typeof value === "string" && NUMERIC_TEXT.test(value);
}

function metaOf(row: Row): Row | undefined {
  const meta = row._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Row) : undefined;
}

/** Whether any epoch field of the row is a string or a fraction: the cheap check of the lean path. */
export function hasLooseEpochs(row: Row): boolean {
  for (const key of TOP_LEVEL_EPOCHS) if (needsFix(row[key])) return true;
  const meta = metaOf(row);
  if (meta === undefined) return false;
  for (const key in meta) if (META_EPOCH.test(key) && needsFix(meta[key])) return true;
  return false;
}

/** The row itself when its epochs are integers already, else a copy with them made integers. */
export function withIntegerEpochs<T extends Row>(row: T): T {
  if (!hasLooseEpochs(row)) return row;
  const copy: Record<string, unknown> = { ...row };
  for (const key of TOP_LEVEL_EPOCHS) if (needsFix(row[key])) copy[key] = epochSeconds(row[key]);
  const meta = metaOf(row);
  if (meta !== undefined) {
    const metaCopy: Record<string, unknown> = { ...meta };
    for (const key in meta)
      if (META_EPOCH.test(key) && needsFix(meta[key])) metaCopy[key] = epochSeconds(meta[key]);
    copy._meta = metaCopy;
  }
  return copy as T;
}
