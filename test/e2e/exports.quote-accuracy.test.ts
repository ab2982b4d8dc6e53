/**
 * The quote's accuracy on the simulator: for comments and posts of several communities, the busy
 * and bursty ones included, over 30 days, the quoted pages are within 10 % of the pages paging the
 * public API really takes (the rows are the archive's own count of the window). When the archive
 * cannot count, the quote is still made, by sampling, and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import { call, type ExportsBeside, jobOf, pageThroughApi, startExportsBeside } from "./exports.support.ts";

const DAY = 86_400;
let stack: Stack;
let service: ExportsBeside;
const before = Math.floor(Date.now() / 1000) - 10 * DAY;
const after = before - 30 * DAY;

beforeAll(async () => {
  stack = await startStack();
  service = await startExportsBeside(stack);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await stack?.stop();
});

const CASES = [
  ["comments", "dataisbeautiful"],
  ["comments", "interestingasfuck"],
  ["comments", "AskHistorians"],
  ["comments", "typescript"],
  ["comments", "NoStupidQuestions"],
  ["comments", "xkcd"],
  ["posts", "dataisbeautiful"],
  ["posts", "interestingasfuck"],
] as const;

describe("the quote on the simulator", () => {
  it.each(CASES)(
    "%s of r/%s: within a tenth of the real page count",
    async (kind, subreddit) => {
      const { key } = await stack.createKey({ credits: 50_000 });
      const quoted = jobOf(await call(stack, key, "POST", "/v1/exports", { kind, subreddit, after, before }));
      const real = await pageThroughApi(stack, key, kind, `subreddit=${subreddit}`, after, before);
      const error = Math.abs(quoted.quote.estimated_pages - real.pages) / real.pages;
      expect(error, `quoted ${quoted.quote.estimated_pages}, paged ${real.pages}`).toBeLessThanOrEqual(0.1);
      expect(quoted.quote.method).toMatch(/counted by the archive's aggregate/);
      expect(quoted.quote.ceiling_credits).toBeGreaterThanOrEqual(real.pages);
    },
    120_000,
  );

  it("samples the window when the archive's count fails, and says so", async () => {
    const { key, id } = await stack.createKey({ credits: 100 });
    await stack.fault({ mode: "error", path: "/api/comments/search/aggregate" });
    try {
      const answer = await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit: "dataisbeautiful",
        after,
        before,
      });
      expect(answer.status).toBe(201);
      const { quote } = jobOf(answer);
      expect(quote.method).toMatch(/sampled \(the archive's count was not available\)/);
      expect(quote.estimated_pages).toBeGreaterThan(10);
    } finally {
      await stack.clearFaults();
    }
    expect(await stack.balanceOf(id)).toBe(100);
  }, 120_000);
});
