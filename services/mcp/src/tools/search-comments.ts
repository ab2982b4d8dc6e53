import { defineTool } from "./define-tool.ts";

export const searchComments = defineTool("listComments", {
  title: "Search comments",
  description: [
    "Lists comments of a community (subreddit) and/or an author, newest first, or fetches comments by id.",
    "Give at least one of subreddit, author or ids.",
    "Listing: returns up to `limit` comments (default 25, max 100); `q` keeps only comments whose body contains the phrase, filtering only the fetched page.",
    "Paging: when _service.has_more is true, call again with the same arguments plus before=_service.cursor (sort=desc, the default) or after=_service.cursor (sort=asc). Each page costs 1 credit.",
    "Batch: `ids` (comma-separated comment ids, up to 100) fetches those comments in one call for 1 credit.",
    "To read one post's whole discussion, get_comment_tree is cheaper: one call for the nested thread.",
  ].join(" "),
});
