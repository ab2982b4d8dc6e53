/**
 * `fields`: what to ask the upstream for, and what to hand back. Only upstream-selectable names
 * (docs/upstream.md#selectable-fields) may be forwarded; when the caller names one that is not (permalink, hide_score…)
 * the page is fetched unprojected and trimmed here. Fields the adapter itself needs (created_utc for
 * the cursor, the text fields for q) are always fetched and trimmed back out.
 */
import { type ItemKind, UPSTREAM_SELECTABLE_FIELDS } from "@rda/contracts";
import type { Item } from "./item-kinds.ts";

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
