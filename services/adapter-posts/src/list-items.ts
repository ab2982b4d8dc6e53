/**
 * adapter.posts.list and adapter.comments.list (spec §4): listing mode or batch mode, then `q`, then
 * `fields`; the data is serialised once.
 */
import type { ItemKind, ListingParams } from "@rda/contracts";
import type { Logger } from "@rda/service-kit";
import { failureReply, okReply, type UpstreamClient } from "@rda/upstream-client";
import { asItems, ITEM_KINDS, type Item } from "./item-kinds.ts";
import { fetchListingPage, malformed } from "./listing-page.ts";
import { createPhraseMatcher } from "./phrase-filter.ts";
import { planProjection, trimItems } from "./projection.ts";

export async function listItems(
  client: UpstreamClient,
  kind: ItemKind,
  params: ListingParams,
  logger: Logger,
): Promise<Uint8Array> {
  return params.ids === undefined
    ? listingMode(client, kind, params, logger)
    : batchMode(client, kind, params.ids, params.fields);
}

/** Spec §4 rule 3: one upstream call; the listing parameters and q are ignored; no cursor. */
async function batchMode(client: UpstreamClient, kind: ItemKind, ids: string, fields: string | undefined) {
  const projection = planProjection(kind, fields, []);
  const result = await client.get(ITEM_KINDS[kind].idsPath, { ids, fields: projection.upstreamFields });
  if (result.outcome !== "ok") return failureReply(result);
  const items = asItems(result.body.data);
  if (items === undefined) return failureReply(malformed(result));
  return okReply(JSON.stringify(trimItems(items, projection.keep)), { cursor: null, has_more: false });
}

async function listingMode(client: UpstreamClient, kind: ItemKind, params: ListingParams, logger: Logger) {
  const textFields = params.q === undefined ? [] : ITEM_KINDS[kind].textFields;
  const projection = planProjection(kind, params.fields, ["created_utc", ...textFields]);
  const request = { kind, params, upstreamFields: projection.upstreamFields };
  const page = await fetchListingPage(client, request, logger);
  if ("outcome" in page) return failureReply(page);
  // Spec §2: cursor and has_more describe the raw page, before q.
  const matched = params.q === undefined ? page.rows : filterByPhrase(page.rows, params.q, textFields);
  const data = JSON.stringify(trimItems(matched, projection.keep));
  return okReply(data, { cursor: page.cursor, has_more: page.has_more });
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
