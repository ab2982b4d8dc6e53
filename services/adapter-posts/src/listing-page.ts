/**
 * Listing mode's page and cursor (docs/api.md#pagination). The upstream orders by created_utc only, and
 * created_utc is not unique. Whether its `after`/`before` include their boundary second is not settled
 * (docs/upstream.md#assumptions), so a page is made exact under either reading:
 *
 *   - Our bounds are exclusive. A row the upstream returns at or past a bound (its boundary second, when
 *     that bound is inclusive upstream) is dropped, and so is a row repeated within the page (by id).
 *     Because no page ever ends inside a second (below), every row of a boundary second was served
 *     whole on the previous page: dropping them is the deduplication at the seam, without state.
 *   - When a full upstream page held nothing but boundary rows, the upstream has shown that bound to be
 *     inclusive, so it is asked once more with the bound moved one second inwards: exactly the rows
 *     past the boundary. No page can repeat its predecessor, so paging cannot loop.
 *   - A FULL page is settled so that it never splits a second: the rows sharing the last row's second
 *     are dropped (the next page starts with them) and the cursor is the last kept row's second; a full
 *     page that is all one second t is replaced by the whole second, fetched with after=t-1&before=t+1
 *     (limit 100), and returned whole with cursor t.
 *   - A page that is not full is the end of the listing, except that an empty upstream page is asked
 *     once more after a short pause: the upstream sometimes answers a transient empty page.
 *
 * "Full" is judged on what the upstream sent, before any row was dropped. See the README for the proof.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type OperationContext, withIntegerEpochs } from "@rda/adapter-kit";
import { type ItemKind, type ListingParams, upstreamListingFilters } from "@rda/contracts";
import {
  type CallOptions,
  jsonArrayPrefix,
  type UpstreamClient,
  type UpstreamFailure,
  type UpstreamQuery,
} from "@rda/upstream-client";

export interface ListingPage {
  readonly rows: readonly ListedItem[];
  readonly cursor: number | null;
  readonly has_more: boolean;
  /** The upstream's own JSON of exactly `rows`, when it can be cut from what it sent. */
  readonly rowsJson: Uint8Array | undefined;
}

/** The upstream's maximum page (docs/upstream.md#post-and-comment-search). */
const MAX_UPSTREAM_LIMIT = 100;

/** How long to wait before asking again for a page that came back empty (docs/upstream.md#assumptions). */
export const EMPTY_PAGE_PAUSE_MS = 250;

export interface ListingRequest {
  readonly kind: ItemKind;
  readonly params: ListingParams;
  readonly upstreamFields: string | undefined;
}

interface Window {
  readonly after: number | undefined;
  readonly before: number | undefined;
  readonly limit: number;
}

export async function fetchListingPage(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext,
): Promise<ListingPage | UpstreamFailure> {
  const { after, before, limit } = request.params;
  const window = { after, before, limit };
  let page = await fetchRows(client, request, context, window);
  if ("outcome" in page) return page;
  if (page.full && page.rows.length === 0 && page.inclusive !== undefined) {
    // Only boundary rows: the bound is inclusive upstream, so one second inwards is exactly "past it".
    const inwards = page.inclusive === "after" ? { after: after! + 1 } : { before: before! - 1 };
    page = await fetchRows(client, request, context, { ...window, ...inwards });
    if ("outcome" in page) return page;
  }
  if (!page.full) return lastPage(page);
  const cut = startOfLastSecond(page.rows);
  if (cut > 0) {
    return {
      rows: page.rows.slice(0, cut),
      cursor: page.rows[cut - 1]!.created_utc,
      has_more: true,
      rowsJson: page.dataJson && jsonArrayPrefix(page.dataJson, cut, page.rows.length),
    };
  }
  if (page.rows.length === 0) {
    // Still nothing past the boundary in a full page: the upstream answers outside the bounds it was
    // given. Ending the listing is the one answer that cannot loop.
    context.logger.warn({ after, before }, "a full upstream page held no row inside its bounds");
    return { rows: [], cursor: null, has_more: false, rowsJson: undefined };
  }
  return fetchWholeSecond(client, request, page.rows, context);
}

function lastPage(page: FetchedRows): ListingPage {
  return {
    rows: page.rows,
    cursor: page.rows.at(-1)?.created_utc ?? null,
    has_more: false,
    rowsJson: page.dataJson,
  };
}

/** Index of the first row of the run of rows that share the last row's second. */
function startOfLastSecond(rows: readonly ListedItem[]): number {
  const second = rows.at(-1)?.created_utc;
  let index = rows.length;
  while (index > 0 && rows[index - 1]!.created_utc === second) index -= 1;
  return index;
}

async function fetchWholeSecond(
  client: UpstreamClient,
  request: ListingRequest,
  seen: readonly ListedItem[],
  context: OperationContext,
): Promise<ListingPage | UpstreamFailure> {
  const second = seen[0]!.created_utc;
  const bounds = { after: second - 1, before: second + 1, limit: MAX_UPSTREAM_LIMIT };
  const page = await fetchRows(client, request, context, bounds);
  if ("outcome" in page) return page;
  if (page.full) {
    // More rows in one second than one upstream page holds: the upstream offers no way to page
    // inside a second, so the rest of it cannot be reached. Logged so an operator can see it.
    context.logger.warn(
      { second, rows: page.rows.length },
      "one second holds a full upstream page; rows may be missed",
    );
  }
  // Under an inclusive reading the window also brings its neighbouring seconds: keep second t only.
  const whole = page.rows.filter((row) => row.created_utc === second);
  // A transient short answer must not lose rows the first page already showed.
  if (whole.length < seen.length) return { rows: seen, cursor: second, has_more: true, rowsJson: undefined };
  const rowsJson = whole.length === page.rows.length ? page.dataJson : undefined;
  return { rows: whole, cursor: second, has_more: true, rowsJson };
}

interface FetchedRows {
  /** The rows strictly inside the window, each once, epochs as integers. */
  readonly rows: readonly ListedItem[];
  /** How many rows the upstream sent. */
  readonly received: number;
  /** The upstream sent as many rows as asked: there may be more past them. */
  readonly full: boolean;
  /** Which bound the upstream showed to be inclusive by returning a row on it, if any. */
  readonly inclusive: "after" | "before" | undefined;
  /** The upstream's own JSON of exactly `rows`, when nothing was dropped or changed. */
  readonly dataJson: Uint8Array | undefined;
}

/**
 * The window's first upstream page, read with exactly one upstream request: never asked again when
 * empty, nor inwards from a bound, nor made whole at a second (the three extra reads of
 * fetchListingPage), and never retried after a failed attempt. For a caller whose one credit pays for
 * one read (an activity search, activity.ts). `full`: the upstream sent as many rows as asked, so the
 * window may hold more; `empty`: it sent none, which may be a transient empty page
 * (docs/upstream.md#assumptions) that this read did not confirm.
 */
export async function readWindowOnce(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext,
): Promise<{ rows: readonly ListedItem[]; full: boolean; empty: boolean } | UpstreamFailure> {
  const { after, before, limit } = request.params;
  const page = await fetchRowsOnce(client, request, { ...context, maxRetries: 0 }, { after, before, limit });
  if ("outcome" in page) return page;
  return { rows: page.rows, full: page.full, empty: page.received === 0 };
}

/** One upstream page; an empty one is asked once more after a short pause, as it may be transient. */
async function fetchRows(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext,
  window: Window,
): Promise<FetchedRows | UpstreamFailure> {
  const page = await fetchRowsOnce(client, request, context, window);
  if ("outcome" in page || page.received > 0) return page;
  await sleep(EMPTY_PAGE_PAUSE_MS);
  return fetchRowsOnce(client, request, context, window);
}

async function fetchRowsOnce(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext & Pick<CallOptions, "maxRetries">,
  window: Window,
): Promise<FetchedRows | UpstreamFailure> {
  const { params, kind, upstreamFields } = request;
  // docs/upstream.md#where-our-contract-differs: limit and sort are always sent explicitly.
  // One upstream page serves every narrower ask: the full page is asked for whatever the limit, and
  // its first `limit` rows are exactly the page that limit asks for (the upstream orders by
  // created_utc; a split second at the cut is dropped below either way), so every limit of one
  // window shares one cached upstream answer.
  const query: UpstreamQuery = {
    subreddit: params.subreddit,
    author: params.author,
    after: window.after,
    before: window.before,
    limit: MAX_UPSTREAM_LIMIT,
    sort: params.sort,
    fields: upstreamFields,
    // The archive's own filters (docs/api.md#amendments-to-the-original-contract) go through under their upstream names.
    ...upstreamListingFilters(params),
  };
  const result = await client.get(ITEM_KINDS[kind].searchPath, query, context);
  if (result.outcome !== "ok") return result;
  const all = asItems(result.body.data);
  // A "busy" retry halves the limit: "full" is judged against the limit that was actually sent.
  const limit = Math.min(window.limit, Number(result.query.limit));
  const items = all?.slice(0, limit);
  const rows = items?.map(withIntegerEpochs);
  if (rows === undefined || !rows.every((row) => Number.isInteger(row.created_utc))) return malformed(result);
  const kept = insideWindow(rows as ListedItem[], window);
  const changed = kept.rows.length !== rows.length || rows.some((row, index) => row !== items![index]);
  return {
    rows: kept.rows,
    received: rows.length,
    full: rows.length >= limit,
    inclusive: kept.inclusive,
    dataJson: changed ? undefined : headBytes(result.body.dataBytes, rows.length, all!.length),
  };
}

/** The upstream's own JSON of its first `count` rows of `length`. */
function headBytes(dataJson: Uint8Array | undefined, count: number, length: number): Uint8Array | undefined {
  if (dataJson === undefined || count === length) return dataJson;
  return jsonArrayPrefix(dataJson, count, length);
}

/** Rows strictly between the bounds, each id once, and which bound (if any) the upstream included. */
function insideWindow(
  rows: readonly ListedItem[],
  window: Window,
): { rows: ListedItem[]; inclusive: "after" | "before" | undefined } {
  const ids = new Set<unknown>();
  const kept: ListedItem[] = [];
  let inclusive: "after" | "before" | undefined;
  for (const row of rows) {
    const second = row.created_utc;
    if (window.after !== undefined && second <= window.after) {
      if (second === window.after) inclusive = "after";
      continue;
    }
    if (window.before !== undefined && second >= window.before) {
      if (second === window.before) inclusive = "before";
      continue;
    }
    if (row.id !== undefined && ids.has(row.id)) continue;
    ids.add(row.id);
    kept.push(row);
  }
  return { rows: kept, inclusive };
}

export function malformed(counts: { attempts: number; retries: number }): UpstreamFailure {
  const message = "upstream: the page is not a list of items with created_utc";
  return { outcome: "unavailable", message, attempts: counts.attempts, retries: counts.retries };
}

/** Where each kind of item lives upstream (docs/upstream.md#endpoints-we-use) and which fields `q` searches (docs/api.md#endpoints). */
export interface ItemKindConfig {
  readonly searchPath: string;
  readonly idsPath: string;
  /** q filters over title and selftext (posts) or body (comments) (docs/api.md#phrase-filter). */
  readonly textFields: readonly string[];
}

export const ITEM_KINDS: Readonly<Record<ItemKind, ItemKindConfig>> = {
  post: { searchPath: "/api/posts/search", idsPath: "/api/posts/ids", textFields: ["title", "selftext"] },
  comment: { searchPath: "/api/comments/search", idsPath: "/api/comments/ids", textFields: ["body"] },
} as const;

/** One upstream post or comment, passed through as the upstream sent it. */
export type Item = Readonly<Record<string, unknown>>;

/** A row usable in a listing: an object with an integer created_utc (the cursor is built from it; listing-page.ts makes it one). */
export type ListedItem = Item & { readonly created_utc: number };

/** Distrust the wire without copying: checks the rows in place. */
export function asItems(data: unknown): Item[] | undefined {
  if (!Array.isArray(data)) return undefined;
  return data.every((row) => typeof row === "object" && row !== null && !Array.isArray(row))
    ? (data as Item[])
    : undefined;
}
