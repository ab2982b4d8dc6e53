import { presentUsers } from "../results/archive-results.ts";
import { defineTool } from "./define-tool.ts";

export const searchUsers = defineTool("searchUsers", {
  title: "Search users",
  pages: true,
  present: presentUsers,
  describe: (budget) => [
    "Finds users by name prefix (author_prefix, without u/), minimum archived karma (min_karma) and recent activity (active_since), with their post and comment counts, karma and first and last activity.",
    "Ordered by karma (sort_type=karma, default) or by name (sort_type=name); `limit` users per page (default 25, max 100).",
    "Paging: when more follows, the result's `next` holds the arguments of the next call (offset moved on). The archive ranks at most the first 1,000 users of one search. Each page costs 1 credit.",
    `A result stays within ${budget} bytes: a page that would not fit is cut at a whole user, and says so.`,
    "Use get_user_profile for one user by exact name.",
  ],
});
