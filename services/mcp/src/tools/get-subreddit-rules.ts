import { defineTool } from "./define-tool.ts";

export const getSubredditRules = defineTool("getSubredditRules", {
  title: "Get a community's rules",
  description:
    "Returns the rules of one community (exact name, 3 to 21 letters, digits or underscores, without r/), each with short_name, description and priority.",
});
