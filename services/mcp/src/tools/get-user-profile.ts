import { presentUser } from "../results/single-results.ts";
import { defineTool } from "./define-tool.ts";

export const getUserProfile = defineTool("getUserProfile", {
  title: "Get a user's profile",
  present: (tool, envelope, args) => presentUser(tool, envelope, args),
  describe: (budget) => [
    "Returns profile aggregates of one user by exact username (without u/): post and comment counts, karma, first and last activity.",
    "A username with no account returns user: null and still costs 1 credit, so check the spelling first.",
    "Use search_posts or search_comments with `author` for the user's actual posts and comments.",
    `A result stays within ${budget} bytes.`,
  ],
});
