import { presentActivity } from "../results/archive-results.ts";
import { defineTool } from "./define-tool.ts";

export const getActivity = defineTool("getActivity", {
  title: "Count activity over time",
  pages: true,
  present: presentActivity,
  describe: (budget) => [
    "Counts the posts or comments (kind) of a community (subreddit) and/or an author per hour, day or week (interval) between after and before (before defaults to now); give at least one of subreddit or author, and after.",
    "With `q`, counts only items containing that exact phrase (mentions per day of a brand, say); that reads the window's items in one page of the archive and works for at most 100 items of the community or author in it, so keep the window short (split a longer one into several calls).",
    "Buckets are UTC (weeks start on Monday); empty ones are listed with count 0; buckets less than 36 hours old are marked settled: false, as their counts can still change. At most 1,000 buckets per call.",
    `A result stays within ${budget} bytes: one with too many buckets is cut, and its \`next\` continues after the last bucket shown. Each call costs 1 credit.`,
  ],
});
