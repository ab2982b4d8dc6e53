import { defineTool } from "./define-tool.ts";

export const searchSubreddits = defineTool("searchSubreddits", {
  title: "Search communities",
  description: [
    "Finds communities (subreddits) whose name starts with `q`; returns at most 10 with subscribers and description; not paginated.",
    "Use it to find the exact community name before listing its posts or reading its rules.",
  ].join(" "),
});
