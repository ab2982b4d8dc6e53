/**
 * Reads the upstream aggregate's buckets (docs/upstream.md#aggregates): `{created_utc, count}` per
 * bucket. Clients of the real upstream read the bucket's time as a date and the count as a number
 * that may arrive as text, so each is accepted in every form seen: epoch seconds or milliseconds as a
 * number or numeric text, or an ISO 8601 date. Each bucket is folded into ours by its start, so the
 * upstream's bucket alignment cannot shift a count into a neighbour.
 */
import { type ActivityInterval, activityBucketStart } from "@rda/contracts";

/** Epoch values above this are milliseconds (it is year 5138 in seconds). */
const MILLISECOND_THRESHOLD = 100_000_000_000;

export function readAggregateBuckets(
  data: unknown,
  interval: ActivityInterval,
): Map<number, number> | undefined {
  if (!Array.isArray(data)) return undefined;
  const counts = new Map<number, number>();
  for (const row of data) {
    if (typeof row !== "object" || row === null) return undefined;
    const { created_utc, count } = row as Record<string, unknown>;
    const second = bucketSecond(created_utc);
    const n = wholeNumber(count);
    if (second === undefined || n === undefined) return undefined;
    const start = activityBucketStart(second, interval);
    counts.set(start, (counts.get(start) ?? 0) + n);
  }
  return counts;
}

function bucketSecond(value: unknown): number | undefined {
  const number = wholeNumber(value);
  if (number !== undefined) return number > MILLISECOND_THRESHOLD ? Math.floor(number / 1000) : number;
  if (typeof value !== "string") return undefined;
  const millis = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000);
}

function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d{1,15}$/.test(value.trim()) ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) && number >= 0 ? number : undefined;
}
