/**
 * The price quote of an export, thrifty with the upstream budget: one free probe page (ids and times
 * only) from the window's start, and the archive's own count of the window (its aggregate, through
 * the archive count, service-kit archive-count.ts), asked side by side. A probe that reaches the window's end
 * counts it exactly; otherwise the rows are the archive's count. Only when that count cannot be had
 * is the window cut into equal strata, one probe page at the start of each, and the rows estimated
 * stratum by stratum from each probe's density (rows per second over the span it covered), which
 * misjudges bursty communities (comments come in bursts around busy threads). Pages follow from rows
 * and the rows a full page really held in the probes (pages never split a second, so a full page
 * holds a little under the page size).
 */
import {
  EXPORT_LIMITS,
  type ExportQuery,
  type ExportQuote,
  err,
  exportPageParams,
  ok,
  type Result,
} from "@rda/contracts";
import { type ArchiveCount, pagesForRows } from "@rda/service-kit";
import type { PageSource } from "./page-source.ts";

export const PROBES = 6;
const DAY = 86_400;

export interface QuoteSettings {
  /** The export share of the upstream budget, in pages per second, for the ETA. */
  readonly pagesPerSecond: number;
}

export type QuoteResult = Result<ExportQuote, string>;

/**
 * One probe page from the window's start and the archive's count, side by side: two upstream calls.
 * The probe alone is exact when it reaches the window's end; otherwise the count gives the rows and
 * the probe the rows a full page holds. Only when the count cannot be had is the window sampled.
 */
export async function makeQuote(
  query: ExportQuery,
  source: PageSource,
  requestIdBase: string,
  settings: QuoteSettings,
  maxCredits?: number,
  count?: ArchiveCount,
): Promise<QuoteResult> {
  const probeQuery: ExportQuery = { ...query, q: undefined, fields: "id,created_utc" };
  const [counted, first] = await Promise.all([
    count?.(
      {
        kind: query.kind,
        ...(query.subreddit === undefined ? {} : { subreddit: query.subreddit }),
        ...(query.author === undefined ? {} : { author: query.author }),
        after: query.after,
        before: query.before,
      },
      `${requestIdBase}.count`,
    ),
    source(query.kind, exportPageParams(probeQuery, query.after), `${requestIdBase}.q0`, "interactive"),
  ]);
  if (!first.ok) return err(first.error.reason);
  const page = first.value;
  const quoted = (rows: number, fill: number, how: string) =>
    ok(quoteOf(query, settings, maxCredits, rows, fill, how));
  if (!page.hasMore || (page.cursor ?? query.after) >= query.before) {
    const rows = page.rows.filter((row) => (row.created_utc as number) < query.before).length;
    return quoted(rows, EXPORT_LIMITS.pageSize, "counted exactly: one probe page covered the whole window");
  }
  if (counted?.ok)
    return quoted(counted.value, page.rows.length, "rows counted by the archive's aggregate over the window");
  // Sampling reads the archive six times more: when a budget refused the count, those reads would
  // be refused the same, and only take turns from everyone else.
  if (counted?.error.refusedBy !== undefined)
    return err("a budget of requests to the data source refused the archive's count; nothing was sampled");
  return sampleQuote(query, source, requestIdBase, settings, maxCredits);
}

function quoteOf(
  query: ExportQuery,
  settings: QuoteSettings,
  maxCredits: number | undefined,
  rows: number,
  fill: number,
  how: string,
): ExportQuote {
  const pages = pagesForRows(rows, fill);
  const withQ = query.q === undefined ? "" : "; rows before the q filter (an upper bound)";
  return {
    estimated_rows: rows,
    estimated_pages: pages,
    method: `${how}; pages from ${fill.toFixed(1)} rows per full page${withQ}`,
    ceiling_credits: maxCredits ?? Math.ceil(pages * 1.2) + 2,
    eta_seconds: Math.ceil(pages / settings.pagesPerSecond),
  };
}

/** Without the archive's count: the window cut into strata, one probe page at the start of each. */
async function sampleQuote(
  query: ExportQuery,
  source: PageSource,
  requestIdBase: string,
  settings: QuoteSettings,
  maxCredits?: number,
): Promise<QuoteResult> {
  const span = query.before - query.after;
  const strata = Math.max(1, Math.min(PROBES, Math.floor(span / 60)));
  const starts = Array.from({ length: strata }, (_, i) => query.after + Math.floor((i * span) / strata));
  // Each probe starts at another hour of the day (when its part spans more than a day), so a daily
  // rhythm of activity is sampled across the day instead of at one hour every time.
  const partLength = Math.floor(span / strata);
  const probeAt = starts.map((start, i) =>
    partLength > 2 * DAY ? start + Math.floor((i * DAY) / strata) : start,
  );
  // Probes ask without q: pages are cut before the filter, so the page count does not depend on it.
  const probeQuery: ExportQuery = { ...query, q: undefined, fields: "id,created_utc" };
  const probes = await Promise.all(
    probeAt.map((at, i) =>
      source(query.kind, exportPageParams(probeQuery, at), `${requestIdBase}.s${i}`, "interactive"),
    ),
  );
  let rows = 0;
  let exact = 0;
  const fills: number[] = [];
  for (let i = 0; i < strata; i++) {
    const probe = probes[i];
    if (probe === undefined) return err("no probe");
    if (!probe.ok) return err(probe.error.reason);
    const start = starts[i] as number;
    const at = probeAt[i] as number;
    const end = i + 1 < strata ? (starts[i + 1] as number) : query.before;
    const page = probe.value;
    if (page.hasMore) fills.push(page.rows.length);
    const reached = page.cursor ?? at;
    const times = page.rows.map((row) => row.created_utc as number);
    // From the probe's first row, not its start: a probe that starts in a quiet spell would
    // otherwise count that spell against the whole part.
    const density = times.length > 1 ? (times.length - 1) / Math.max(1, reached - Math.min(...times)) : 0;
    const before = Math.round(density * (at - start));
    if (!page.hasMore || reached >= end) {
      rows += before + times.filter((time) => time <= end && time < query.before).length;
      if (at === start) exact += 1;
    } else {
      rows += before + Math.round(density * (end - at));
    }
  }
  const fill = fills.length > 0 ? fills.reduce((a, b) => a + b, 0) / fills.length : EXPORT_LIMITS.pageSize;
  const how =
    exact === strata
      ? `counted exactly: ${strata} probe page${strata > 1 ? "s" : ""} covered the whole window`
      : `sampled (the archive's count was not available): the window cut into ${strata} equal parts, one probe page in each, each at another hour of the day; ${exact} part${exact === 1 ? "" : "s"} counted exactly, the rest from the probe's density`;
  return ok(quoteOf(query, settings, maxCredits, rows, fill, how));
}
