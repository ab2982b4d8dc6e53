/**
 * adapter.posts.list and adapter.comments.list (docs/api.md#posts): listing mode or batch mode, then
 * `q`, then `fields`. Rows handed on unchanged travel as the upstream's own bytes; others are
 * serialised once.
 */
import {
  failureReply,
  type OperationContext,
  type OperationWork,
  okReply,
  withIntegerEpochs,
} from "@rda/adapter-kit";
import { type ItemKind, type ListingParams, UPSTREAM_SELECTABLE_FIELDS } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";
import { asItems, fetchListingPage, ITEM_KINDS, type Item, malformed } from "./listing-page.ts";
import { createPhraseMatcher } from "./phrase-filter.ts";

export const listPosts: OperationWork<"listPosts"> = (client, params, context) =>
  listItems(client, "post", params, context);

export const listComments: OperationWork<"listComments"> = (client, params, context) =>
  listItems(client, "comment", params, context);

function listItems(
  client: UpstreamClient,
  kind: ItemKind,
  params: ListingParams,
  context: OperationContext,
): Promise<Uint8Array> {
  return params.ids === undefined
    ? listingMode(client, kind, params, context)
    : batchMode(client, kind, params, context);
}

/** Batch mode (docs/api.md#batch-mode): one upstream call; the listing parameters and q are ignored; no cursor. */
async function batchMode(
  client: UpstreamClient,
  kind: ItemKind,
  params: ListingParams,
  context: OperationContext,
) {
  const projection = planProjection(kind, params.fields, []);
  const query = { ids: params.ids, fields: projection.upstreamFields };
  const result = await client.get(ITEM_KINDS[kind].idsPath, query, context);
  if (result.outcome !== "ok") return failureReply(result);
  const received = asItems(result.body.data);
  if (received === undefined) return failureReply(malformed(result));
  // docs/upstream.md#assumptions: epochs may arrive as numeric strings; the contract answers integers.
  const items = received.map(withIntegerEpochs);
  const intact = items.every((item, index) => item === received[index]);
  const unchanged = projection.keep === undefined && intact ? result.body.dataBytes : undefined;
  return okReply(unchanged ?? JSON.stringify(trimItems(items, projection.keep)), {
    cursor: null,
    has_more: false,
  });
}

async function listingMode(
  client: UpstreamClient,
  kind: ItemKind,
  params: ListingParams,
  context: OperationContext,
) {
  const { textFields } = ITEM_KINDS[kind];
  // Whole rows, projected here: one upstream page serves every `fields` and `q` of its window (and
  // keeps created_utc for the cursor, id to drop a repeated row: listing-page.ts).
  const projection = planProjection(kind, params.fields, []);
  const request = { kind, params, upstreamFields: undefined };
  const page = await fetchListingPage(client, request, context);
  if ("outcome" in page) return failureReply(page);
  const list = { cursor: page.cursor, has_more: page.has_more };
  // Rows handed on as the upstream sent them are forwarded as its own bytes, not serialised again.
  if (params.q === undefined && projection.keep === undefined && page.rowsJson)
    return okReply(page.rowsJson, list);
  // docs/api.md#phrase-filter: cursor and has_more describe the raw page, before q.
  const matched = params.q === undefined ? page.rows : filterByPhrase(page.rows, params.q, textFields);
  return okReply(JSON.stringify(trimItems(matched, projection.keep)), list);
}

function filterByPhrase(rows: readonly Item[], phrase: string, textFields: readonly string[]): Item[] {
  const matches = createPhraseMatcher(phrase);
  return rows.filter((row) =>
    textFields.some((field) => {
      const text = row[field];
      return typeof text === "string" && matches(text);
    }),
  );
}

/**
 * `fields`: what to ask the upstream for, and what to hand back. Only upstream-selectable names
 * (docs/upstream.md#selectable-fields) may be forwarded; when the caller names one that is not (permalink, hide_score…)
 * the page is fetched unprojected and trimmed here. Fields the adapter itself needs (created_utc for
 * the cursor, the text fields for q) are always fetched and trimmed back out.
 */
export interface Projection {
  /** The `fields` query parameter to send upstream; undefined fetches whole objects. */
  readonly upstreamFields: string | undefined;
  /** Keys to return, in the caller's order; undefined returns objects untrimmed (docs/api.md#response-envelope). */
  readonly keep: readonly string[] | undefined;
}

export function planProjection(
  kind: ItemKind,
  fields: string | undefined,
  needed: readonly string[],
): Projection {
  if (fields === undefined) return { upstreamFields: undefined, keep: undefined };
  const keep = fields.split(",");
  const fetch = [...new Set([...keep, ...needed])];
  const selectable = fetch.every((name) => UPSTREAM_SELECTABLE_FIELDS[kind].has(name));
  return { upstreamFields: selectable ? fetch.join(",") : undefined, keep };
}

/** New small objects with only the kept keys; keys the upstream did not send stay absent. */
export function trimItems(items: readonly Item[], keep: readonly string[] | undefined): readonly Item[] {
  if (keep === undefined) return items;
  return items.map((item) => {
    const trimmed: Record<string, unknown> = {};
    for (const name of keep) if (name in item) trimmed[name] = item[name];
    return trimmed;
  });
}
