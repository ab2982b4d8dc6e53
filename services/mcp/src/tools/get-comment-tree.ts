import { defineTool } from "./define-tool.ts";

export const getCommentTree = defineTool("getCommentTree", {
  title: "Get a post's comment tree",
  description: [
    "Returns the whole nested comment thread of one post (post_id with or without t3_) in one call; not paginated.",
    "`limit` caps the comments returned (default 50, max 500); parts cut off come back as nodes of kind `more` with their comment count.",
    "Use it for a post's discussion and for its true comment count, which is right even while a fresh post's num_comments reads 0.",
  ].join(" "),
});
