/**
 * A quote and the upstream budget, in process: the probe page and the archive's count are asked side
 * by side, and the window is sampled (six more reads) only when the count failed for another reason
 * than a budget's refusal. A refused count means any other reading would be refused the same and only
 * take turns from everyone else, so the quote is refused instead (the service names whose budget).
 */
import { EXPORT_LIMITS, type ExportQuery, err, ok } from "@rda/contracts";
import type { ArchiveCount, CountFailure } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import type { PageSource } from "../src/page-source.ts";
import { makeQuote, PROBES } from "../src/quote.ts";

const DAY = 86_400;
const query: ExportQuery = {
  kind: "posts",
  subreddit: "dataisbeautiful",
  after: 1_700_000_000,
  before: 1_700_000_000 + 30 * DAY,
  format: "jsonl",
  gzip: false,
};

/** A listing whose every page is full (more follows), each page's rows a second apart. */
function fullPages(): { source: PageSource; asked: () => number } {
  let asked = 0;
  const source: PageSource = async (_kind, params) => {
    asked += 1;
    const from = Number(params.after ?? query.after) + 1;
    const rows = Array.from({ length: EXPORT_LIMITS.pageSize }, (_, i) => ({
      id: `p${from + i}`,
      created_utc: from + i,
    }));
    return ok({ rows, cursor: from + EXPORT_LIMITS.pageSize - 1, hasMore: true });
  };
  return { source, asked: () => asked };
}

const countThat =
  (answer: number | CountFailure): ArchiveCount =>
  async () =>
    typeof answer === "number" ? ok(answer) : err(answer);

const settings = { pagesPerSecond: 1 };

describe("a quote's reads of the archive", () => {
  it("quotes from the probe and the archive's count: one page read", async () => {
    const pages = fullPages();
    const quote = await makeQuote(query, pages.source, "exp_q", settings, undefined, countThat(4_321));
    expect(quote.ok && quote.value.estimated_rows).toBe(4_321);
    expect(pages.asked()).toBe(1);
  });

  it.each([
    ["our budget", { refusedBy: "ours", retryAfterSeconds: 2 }],
    ["the upstream's limit", { refusedBy: "upstream", retryAfterSeconds: 30 }],
  ] as const)(
    "samples nothing when %s refused the count: the quote is refused after the probe",
    async (_, refusal) => {
      const pages = fullPages();
      const quote = await makeQuote(query, pages.source, "exp_q", settings, undefined, countThat(refusal));
      expect(quote.ok).toBe(false);
      expect(pages.asked()).toBe(1);
    },
  );

  it("samples the window when the count failed otherwise (the aggregate broke), and says so", async () => {
    const pages = fullPages();
    const quote = await makeQuote(query, pages.source, "exp_q", settings, undefined, countThat({}));
    expect(quote.ok && quote.value.method).toMatch(/^sampled/);
    expect(pages.asked()).toBe(1 + PROBES);
  });
});
