/**
 * Listing mode's page and cursor. The upstream orders by created_utc only, its after/before bounds are
 * exclusive, and created_utc is not unique (docs/upstream.md#post-and-comment-search, docs/upstream.md#response-shapes). A cursor that is "the last row's
 * second" would therefore skip the rest of that second on the next page. So a FULL page is settled:
 *
 *   - rows sharing the last row's second are dropped (the next page, bounded exclusively by the
 *     previous row's second, starts with them), and the cursor is the second of the last kept row;
 *   - a full page that is all one second t is replaced by the whole second, fetched with
 *     after=t-1&before=t+1 (limit 100), and returned whole; the cursor is t.
 *
 * A page that is not full is the end of the listing: returned as is. See the README for the proof.
 */
import type { OperationContext } from "@rda/adapter-kit";
import { type ItemKind, type ListingParams, upstreamListingFilters } from "@rda/contracts";
import {
  jsonArrayPrefix,
  type UpstreamClient,
  type UpstreamFailure,
  type UpstreamQuery,
} from "@rda/upstream-client";
import { asListedItems, ITEM_KINDS, type ListedItem } from "./item-kinds.ts";

export interface ListingPage {
  readonly rows: readonly ListedItem[];
  readonly cursor: number | null;
  readonly has_more: boolean;
  /** The upstream's own JSON of exactly `rows`, when it can be cut from what it sent. */
  readonly rowsJson: Uint8Array | undefined;
}

/** The upstream's maximum page (docs/upstream.md#post-and-comment-search). */
const MAX_UPSTREAM_LIMIT = 100;

export interface ListingRequest {
  readonly kind: ItemKind;
  readonly params: ListingParams;
  readonly upstreamFields: string | undefined;
}

export async function fetchListingPage(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext,
): Promise<ListingPage | UpstreamFailure> {
  const { params } = request;
  const page = await fetchRows(client, request, context, {
    after: params.after,
    before: params.before,
    limit: params.limit,
  });
  if ("outcome" in page) return page;
  if (page.rows.length < page.sentLimit) return lastPage(page);
  const cut = startOfLastSecond(page.rows);
  if (cut > 0) {
    const rowsJson = page.dataJson && jsonArrayPrefix(page.dataJson, cut, page.rows.length);
    return {
      rows: page.rows.slice(0, cut),
      cursor: page.rows[cut - 1]!.created_utc,
      has_more: true,
      rowsJson,
    };
  }
  return fetchWholeSecond(client, request, page.rows[0]!.created_utc, context);
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
  second: number,
  context: OperationContext,
): Promise<ListingPage | UpstreamFailure> {
  const bounds = { after: second - 1, before: second + 1, limit: MAX_UPSTREAM_LIMIT };
  const page = await fetchRows(client, request, context, bounds);
  if ("outcome" in page) return page;
  if (page.rows.length >= page.sentLimit) {
    // More rows in one second than one upstream page holds: the upstream offers no way to page
    // inside a second, so the rest of it cannot be reached. Logged so an operator can see it.
    context.logger.warn(
      { second, rows: page.rows.length },
      "one second holds a full upstream page; rows may be missed",
    );
  }
  return { rows: page.rows, cursor: second, has_more: true, rowsJson: page.dataJson };
}

interface Window {
  readonly after: number | undefined;
  readonly before: number | undefined;
  readonly limit: number;
}

async function fetchRows(
  client: UpstreamClient,
  request: ListingRequest,
  context: OperationContext,
  window: Window,
) {
  const { params, kind, upstreamFields } = request;
  // docs/upstream.md#where-our-contract-differs: limit and sort are always sent explicitly.
  const query: UpstreamQuery = {
    subreddit: params.subreddit,
    author: params.author,
    after: window.after,
    before: window.before,
    limit: window.limit,
    sort: params.sort,
    fields: upstreamFields,
    // The archive's own filters (docs/api.md#amendments-to-the-original-contract) go through under their upstream names.
    ...upstreamListingFilters(params),
  };
  const result = await client.get(ITEM_KINDS[kind].searchPath, query, context);
  if (result.outcome !== "ok") return result;
  const rows = asListedItems(result.body.data);
  if (rows === undefined) return malformed(result);
  // A "busy" retry halves the limit: "full" is judged against the limit that was actually sent.
  return { rows, sentLimit: Number(result.query.limit), dataJson: result.body.dataBytes };
}

interface FetchedRows {
  readonly rows: readonly ListedItem[];
  readonly sentLimit: number;
  readonly dataJson: Uint8Array | undefined;
}

export function malformed(counts: { attempts: number; retries: number }): UpstreamFailure {
  const message = "upstream: the page is not a list of items with created_utc";
  return { outcome: "unavailable", message, attempts: counts.attempts, retries: counts.retries };
}
