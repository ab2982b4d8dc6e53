import { presentCommunities } from "../results/single-results.ts";
import { defineTool } from "./define-tool.ts";

export const searchSubreddits = defineTool("searchSubreddits", {
  title: "Search communities",
  present: presentCommunities,
  describe: (budget) => [
    "Finds communities (subreddits) whose name starts with `q` (r/ optional); returns at most 10 with subscribers and description; not paginated.",
    "Use it to find the exact community name before listing its posts or reading its rules.",
    `A result stays within ${budget} bytes.`,
  ],
});
