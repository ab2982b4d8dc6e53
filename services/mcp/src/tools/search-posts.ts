import { postSchema } from "@rda/contracts";
import { z } from "zod";
import { presentListing } from "../results/listing.ts";
import { defineTool } from "./define-tool.ts";
import { listingHttpParams, listingInput } from "./listing-arguments.ts";

export const searchPosts = defineTool("listPosts", {
  title: "Search posts",
  input: listingInput("post"),
  data: z.array(postSchema),
  pages: true,
  httpParams: listingHttpParams("post"),
  present: (tool, envelope, args, budget) => presentListing("post", tool, envelope as never, args, budget),
  describe: (budget) => [
    "Lists posts of a community (subreddit) and/or an author, newest first, or fetches posts by id.",
    "Give at least one of subreddit, author or ids.",
    "Listing: returns up to `limit` posts (default 25, max 100); `q` keeps only posts whose title or selftext contains the phrase, but filters only the fetched page, so an empty page with more to follow does not mean there is nothing further.",
    "Filters (the archive's own, combinable with q): over_18 and spoiler (true or false), link_flair_text and author_flair_text (keyword match on the flair), url (a prefix, or exact with url_exact true) and crosspost_parent_id (crossposts of that post).",
    "Each post has id, title, author, subreddit, created_utc, score, num_comments and permalink; `fields` adds others, such as selftext or url.",
    `A result stays within ${budget} bytes: a page that would not fit is cut at a whole post, and says so.`,
    "Paging: when more follows, the result's `next` holds the arguments of the next call (the same ones with before, or after for sort=asc, moved to the cursor). Each page costs 1 credit.",
    "Batch: `ids` (comma-separated, up to 100) fetches those posts in one call for 1 credit and ignores the listing arguments.",
    "Use get_comment_tree for a post's comments and true comment count (num_comments reads 0 on posts younger than ~36 h).",
  ],
});
