import { defineTool } from "./define-tool.ts";

export const searchPosts = defineTool("listPosts", {
  title: "Search posts",
  description: [
    "Lists posts of a community (subreddit) and/or an author, newest first, or fetches posts by id.",
    "Give at least one of subreddit, author or ids.",
    "Listing: returns up to `limit` posts (default 25, max 100); `q` keeps only posts whose title or selftext contains the phrase, but filters only the fetched page, so an empty page with has_more=true does not mean there is nothing further.",
    "Paging: when _service.has_more is true, call again with the same arguments plus before=_service.cursor (sort=desc, the default) or after=_service.cursor (sort=asc). Each page costs 1 credit.",
    "Batch: `ids` (comma-separated, up to 100) fetches those posts in one call for 1 credit and ignores the listing arguments.",
    "Use get_comment_tree for a post's comments and true comment count (num_comments reads 0 on posts younger than ~36 h).",
  ].join(" "),
});
