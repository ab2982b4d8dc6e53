import { presentRules } from "../results/single-results.ts";
import { defineTool } from "./define-tool.ts";

export const getSubredditRules = defineTool("getSubredditRules", {
  title: "Get a community's rules",
  present: presentRules,
  describe: (budget) => [
    "Returns the rules of one community (exact name, 3 to 21 letters, digits or underscores, r/ optional), each with short_name, description and priority.",
    `A result stays within ${budget} bytes.`,
  ],
});
