/**
 * The price quote of an export. The upstream we use offers no time-series count for a community's
 * or an author's items (docs/upstream.md lists what we call), so the window is cut into equal
 * strata and one free probe page (ids and times only) is asked at the start of each. A probe that
 * reaches the next stratum's start counts its stratum exactly; one that does not gives the
 * stratum's density (rows per second over the span it covered). Small windows are so counted
 * exactly; large ones are estimated stratum by stratum, which follows changes in activity. Pages
 * follow from rows and the rows a full page really held in the probes (pages never split a second,
 * so a full page holds a little under the page size).
 */
import { EXPORT_LIMITS, type ExportQuery, type ExportQuote, exportPageParams } from "@rda/contracts";
import type { PageSource } from "./page-source.ts";

export const PROBES = 6;

export interface QuoteSettings {
  /** The export share of the upstream budget, in pages per second, for the ETA. */
  readonly pagesPerSecond: number;
}

export type QuoteResult = { ok: true; quote: ExportQuote } | { ok: false; reason: string };

export async function makeQuote(
  query: ExportQuery,
  source: PageSource,
  requestIdBase: string,
  settings: QuoteSettings,
  maxCredits?: number,
): Promise<QuoteResult> {
  const span = query.before - query.after;
  const strata = Math.max(1, Math.min(PROBES, Math.floor(span / 60)));
  const starts = Array.from({ length: strata }, (_, i) => query.after + Math.floor((i * span) / strata));
  // Probes ask without q: pages are cut before the filter, so the page count does not depend on it.
  const probeQuery: ExportQuery = { ...query, q: undefined, fields: "id,created_utc" };
  const probes = await Promise.all(
    starts.map((start, i) =>
      source(query.kind, exportPageParams(probeQuery, start), `${requestIdBase}.q${i}`),
    ),
  );
  let rows = 0;
  let exact = 0;
  const fills: number[] = [];
  for (let i = 0; i < strata; i++) {
    const probe = probes[i];
    if (probe === undefined || !probe.ok) return { ok: false, reason: probe?.reason ?? "no probe" };
    const start = starts[i] as number;
    const end = i + 1 < strata ? (starts[i + 1] as number) : query.before;
    const { page } = probe;
    if (page.hasMore) fills.push(page.rows.length);
    const reached = page.cursor ?? start;
    if (!page.hasMore || reached >= end) {
      rows += page.rows.filter(
        (row) => (row.created_utc as number) <= end && (row.created_utc as number) < query.before,
      ).length;
      exact += 1;
    } else {
      const density = page.rows.length / Math.max(1, reached - start);
      rows += Math.round(density * (end - start));
    }
  }
  const fill = fills.length > 0 ? fills.reduce((a, b) => a + b, 0) / fills.length : EXPORT_LIMITS.pageSize;
  // Every full page says has_more, and the listing ends on a page that is not full.
  const pages = Math.floor(rows / Math.max(1, fill)) + 1;
  const ceiling = maxCredits ?? Math.ceil(pages * 1.2) + 2;
  const how =
    exact === strata
      ? `counted exactly: ${strata} probe page${strata > 1 ? "s" : ""} covered the whole window`
      : `sampled: the window cut into ${strata} equal parts, one probe page at the start of each; ${exact} part${exact === 1 ? "" : "s"} counted exactly, the rest from the probe's density`;
  const withQ = query.q === undefined ? "" : "; rows before the q filter (an upper bound)";
  return {
    ok: true,
    quote: {
      estimated_rows: rows,
      estimated_pages: pages,
      method: `${how}; pages from ${fill.toFixed(1)} rows per full page${withQ}`,
      ceiling_credits: ceiling,
      eta_seconds: Math.ceil(pages / settings.pagesPerSecond),
    },
  };
}
