import { presentCommunities } from "../results/single-results.ts";
import { defineTool } from "./define-tool.ts";

export const searchSubreddits = defineTool("searchSubreddits", {
  title: "Search communities",
  present: presentCommunities,
  describe: (budget) => [
    "Finds communities (subreddits) whose name starts with `q` (r/ optional), with subscribers, description, title, creation time and post and comment counts; not paginated.",
    "Returns 10 unless `limit` asks for up to 100; min_subscribers, max_subscribers and over18 (true or false) filter them; sort_type (subscribers, created_utc or name) and sort (asc or desc) order them, most subscribers first by default.",
    "Use it to find the exact community name before listing its posts or reading its rules.",
    `A result stays within ${budget} bytes.`,
  ],
});
