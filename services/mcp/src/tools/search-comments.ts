import { commentSchema } from "@rda/contracts";
import { z } from "zod";
import { presentListing } from "../results/listing.ts";
import { defineTool } from "./define-tool.ts";
import { listingHttpParams, listingInput } from "./listing-arguments.ts";

export const searchComments = defineTool("listComments", {
  title: "Search comments",
  input: listingInput("comment"),
  data: z.array(commentSchema),
  pages: true,
  httpParams: listingHttpParams("comment"),
  present: (tool, envelope, args, budget) => presentListing("comment", tool, envelope as never, args, budget),
  describe: (budget) => [
    "Lists comments of a community (subreddit) and/or an author, newest first, or fetches comments by id.",
    "Give at least one of subreddit, author, ids, link_id or a non-empty parent_id.",
    "`link_id` (a post id) lists that post's comments as a flat list, paged like any listing, however long the thread; `parent_id` keeps the direct replies to one comment, or with an empty value top-level comments only.",
    "Listing: returns up to `limit` comments (default 25, max 100); `q` keeps only comments whose body contains the phrase, filtering only the fetched page.",
    "Each comment has id, body, author, subreddit, created_utc, score, link_id (its post) and permalink; `fields` adds others, such as parent_id.",
    `A result stays within ${budget} bytes: a page that would not fit is cut at a whole comment, and says so.`,
    "Paging: when more follows, the result's `next` holds the arguments of the next call (the same ones with before, or after for sort=asc, moved to the cursor). Each page costs 1 credit.",
    "Batch: `ids` (comma-separated comment ids, up to 100) fetches those comments in one call for 1 credit.",
    "To read one post's discussion nested, get_comment_tree is cheaper for threads up to 500 comments; link_id pages through threads of any size.",
  ],
});
