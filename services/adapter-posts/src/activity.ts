/**
 * adapter.activity.get (docs/api.md#activity): posts or comments per hour, day or week of a window.
 *
 * Without `q` the upstream's aggregate endpoint counts them (docs/upstream.md#aggregates). With `q`
 * it cannot: its keyword search is not our exact-phrase match (docs/api.md#phrase-filter). The items
 * of the window are then read in one upstream page (listing-page.ts, `readWindowOnce`) and matched
 * here.
 *
 * A request pays one credit, so a search makes exactly one upstream request: never more upstream
 * work than it pays for (docs/api.md#activity). Nothing is asked twice: a window holding more than
 * the page is refused (400, refunded) rather than answered with a partial count; an empty page is
 * answered as it came, marked `empty_unconfirmed` (the upstream sometimes answers a transient empty
 * page, and confirming it would be a second read); a failed attempt is not retried (502, refunded).
 * The request's turn counted against the caller's own fair share of the upstream budget whatever it
 * ended in (docs/upstream.md#fair-shares), so repeating refused requests only slows the caller. An
 * aggregate that fails is a 502, refunded: paging in its place would be a second read for the same
 * credit.
 */
import { failureReply, type OperationContext, okReply, tooLargeReply } from "@rda/adapter-kit";
import {
  ACTIVITY_INTERVAL_SECONDS,
  type Activity,
  type ActivityInterval,
  activityBucketStart,
  type GetActivityParams,
  type ListingParams,
} from "@rda/contracts";
import type { UpstreamClient, UpstreamFailure } from "@rda/upstream-client";
import { readAggregateBuckets } from "./aggregate-buckets.ts";
import { ITEM_KINDS, readWindowOnce } from "./listing-page.ts";
import { createPhraseMatcher } from "./phrase-filter.ts";

/** The one upstream page an answer with `q` reads: the items of its window it can count. */
export const SEARCH_PAGE_SIZE = 100;

/** The archive fetches every item again about 36 h after creation (docs/upstream.md#blackout). */
const SETTLING_SECONDS = 36 * 3600;

const AGGREGATE_PATHS = {
  posts: "/api/posts/search/aggregate",
  comments: "/api/comments/search/aggregate",
} as const;

type Counts = Map<number, number>;

export async function getActivity(
  client: UpstreamClient,
  params: GetActivityParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const now = Math.floor(Date.now() / 1000);
  const window = { after: params.after, before: params.before ?? now };
  const source: Activity["source"] = params.q === undefined ? "aggregate" : "search";
  const counted =
    params.q === undefined
      ? await countByAggregate(client, params, window, context)
      : await countBySearch(client, params, params.q, window, context);
  if ("outcome" in counted) return failureReply(counted);
  if ("tooMany" in counted) {
    const what = params.kind;
    return tooLargeReply(
      `the window holds more than ${SEARCH_PAGE_SIZE} ${what} of this ${params.subreddit ? "community" : "author"} to search for q (one upstream page a request); narrow the window (after, before)`,
    );
  }
  const activity: Activity = {
    kind: params.kind,
    interval: params.interval,
    ...window,
    source,
    ...bucketsOf(counted.counts, params.interval, window, now),
    ...(counted.emptyUnconfirmed === undefined ? {} : { empty_unconfirmed: counted.emptyUnconfirmed }),
  };
  return okReply(JSON.stringify(activity));
}

interface Window {
  readonly after: number;
  readonly before: number;
}

async function countByAggregate(
  client: UpstreamClient,
  params: GetActivityParams,
  window: Window,
  context: OperationContext,
): Promise<{ counts: Counts; emptyUnconfirmed?: undefined } | UpstreamFailure> {
  const query = {
    aggregate: "created_utc",
    frequency: params.interval,
    subreddit: params.subreddit,
    author: params.author,
    after: window.after,
    before: window.before,
  };
  const result = await client.get(AGGREGATE_PATHS[params.kind], query, context);
  if (result.outcome !== "ok") return result;
  const counts = readAggregateBuckets(result.body.data, params.interval);
  if (counts === undefined) {
    const message = "upstream: the aggregate is not a list of {created_utc, count} buckets";
    return { outcome: "unavailable", message, attempts: result.attempts, retries: result.retries };
  }
  return { counts };
}

/**
 * Reads the window's one page and counts the items containing `phrase`; more than a page is tooMany,
 * and an empty page is said to be unconfirmed.
 */
async function countBySearch(
  client: UpstreamClient,
  params: GetActivityParams,
  phrase: string,
  window: Window,
  context: OperationContext,
): Promise<{ counts: Counts; emptyUnconfirmed: boolean } | { tooMany: true } | UpstreamFailure> {
  const kind = params.kind === "posts" ? "post" : "comment";
  const { textFields } = ITEM_KINDS[kind];
  const matches = createPhraseMatcher(phrase);
  const listing = {
    subreddit: params.subreddit,
    author: params.author,
    after: window.after,
    before: window.before,
    limit: SEARCH_PAGE_SIZE,
    sort: "asc",
  } as ListingParams;
  const upstreamFields = ["id", "created_utc", ...textFields].join(",");
  const fetched = await readWindowOnce(client, { kind, params: listing, upstreamFields }, context);
  if ("outcome" in fetched) return fetched;
  if (fetched.full) return { tooMany: true };
  const counts: Counts = new Map();
  const seen = new Set<unknown>();
  for (const row of fetched.rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    const text = textFields.map((field) => row[field]).filter((value) => typeof value === "string");
    if (!text.some((value) => matches(value as string))) continue;
    const bucket = activityBucketStart(row.created_utc, params.interval);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  return { counts, emptyUnconfirmed: fetched.empty };
}

/** Every bucket of the window, in time order, empty ones as 0. */
function bucketsOf(counts: Counts, interval: ActivityInterval, window: Window, now: number) {
  const length = ACTIVITY_INTERVAL_SECONDS[interval];
  const buckets: Activity["buckets"] = [];
  let total = 0;
  for (let start = activityBucketStart(window.after + 1, interval); start < window.before; start += length) {
    const count = counts.get(start) ?? 0;
    total += count;
    // The bucket's newest item is younger than the window's end and the bucket's end.
    const newest = Math.min(start + length, window.before);
    buckets.push({ start, count, settled: newest + SETTLING_SECONDS <= now });
  }
  return { total, buckets };
}
