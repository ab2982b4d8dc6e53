/**
 * /api/posts/search/aggregate and /api/comments/search/aggregate (docs/upstream.md#aggregates): the
 * matching items of a search, counted per time bucket (`aggregate=created_utc` with `frequency`), per
 * author or per community. Every filter of the search endpoints applies. Buckets come as the
 * upstream's database hands them over: the bucket start as an ISO date, the count as text.
 */
import type { Corpus } from "../corpus/types.ts";
import { Messages } from "../errors.ts";
import type { ParamReader } from "./params.ts";
import type { Sort } from "./slices.ts";
import { SORTS } from "./slices.ts";

const AGGREGATES = ["created_utc", "author", "subreddit"] as const;
type Aggregate = (typeof AGGREGATES)[number];
const FREQUENCIES = ["year", "quarter", "month", "week", "day", "hour"] as const;
type Frequency = (typeof FREQUENCIES)[number];

export interface AggregateRequest {
  readonly aggregate: Aggregate;
  readonly frequency?: Frequency | undefined;
  /** Undefined: no limit (`limit=` or absent). */
  readonly limit?: number | undefined;
  readonly minCount?: number | undefined;
  readonly sort: Sort;
}

/** The aggregate's own parameters; the search's filters are read by the search's reader. */
export function readAggregateRequest(reader: ParamReader): AggregateRequest | undefined {
  const aggregate = reader.word("aggregate");
  if (aggregate === undefined) return reader.fail(Messages.missingParam("aggregate"));
  const chosen = reader.choice("aggregate", AGGREGATES, "created_utc");
  const byTime = chosen === "created_utc";
  const frequency = byTime ? reader.word("frequency") : undefined;
  if (byTime && frequency === undefined) return reader.fail(Messages.missingParam("frequency"));
  return {
    aggregate: chosen,
    frequency: byTime ? reader.choice("frequency", FREQUENCIES, "day") : undefined,
    limit: reader.int("limit", 1),
    minCount: byTime ? undefined : reader.int("min_count", 0),
    sort: reader.choice("sort", SORTS, byTime ? "asc" : "desc"),
  };
}

export type Bucket = { created_utc: string; count: string } | Record<string, string>;

/** Counts `items` (created epoch seconds and names by index) into the requested buckets. */
export function aggregateItems(
  corpus: Corpus,
  items: readonly number[],
  request: AggregateRequest,
  describe: {
    created: (item: number) => number;
    author: (item: number) => number;
    sub: (item: number) => number;
  },
): Bucket[] {
  const counts = new Map<string | number, number>();
  for (const item of items) {
    const key =
      request.aggregate === "created_utc"
        ? bucketStart(describe.created(item), request.frequency ?? "day")
        : request.aggregate === "author"
          ? (corpus.authors[describe.author(item)]?.name ?? "[deleted]")
          : (corpus.subreddits[describe.sub(item)]?.name ?? "");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const direction = request.sort === "asc" ? 1 : -1;
  const entries = [...counts].filter(([, count]) => count >= (request.minCount ?? 0));
  if (request.aggregate === "created_utc")
    entries.sort(([a], [b]) => direction * ((a as number) - (b as number)));
  else entries.sort(([, a], [, b]) => direction * (a - b));
  const limited = request.limit === undefined ? entries : entries.slice(0, request.limit);
  return limited.map(([key, count]) =>
    request.aggregate === "created_utc"
      ? { created_utc: new Date((key as number) * 1000).toISOString(), count: String(count) }
      : { [request.aggregate]: String(key), count: String(count) },
  );
}

/** The bucket's start, as the database truncates a time: UTC, weeks from Monday. */
function bucketStart(second: number, frequency: Frequency): number {
  const date = new Date(second * 1000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  switch (frequency) {
    case "year":
      return Date.UTC(year, 0, 1) / 1000;
    case "quarter":
      return Date.UTC(year, month - (month % 3), 1) / 1000;
    case "month":
      return Date.UTC(year, month, 1) / 1000;
    case "week": {
      const sinceMonday = (date.getUTCDay() + 6) % 7;
      return Date.UTC(year, month, day - sinceMonday) / 1000;
    }
    case "day":
      return Date.UTC(year, month, day) / 1000;
    default:
      return Math.floor(second / 3600) * 3600;
  }
}
