import { commentSchema, getCommentTreeParamsSchema, normaliseItemId } from "@rda/contracts";
import { z } from "zod";
import { presentCommentTree } from "../results/comment-tree.ts";
import { fieldsArgument } from "../results/fields.ts";
import { defineTool } from "./define-tool.ts";

const resumeAfter = z
  .string({ error: "must be a comment id" })
  .transform((raw, ctx) => {
    const id = normaliseItemId(raw, "comment");
    if (id !== undefined) return id;
    ctx.addIssue({ code: "custom", message: "must be a comment id (base36, optional t1_)" });
    return z.NEVER;
  })
  .optional()
  .meta({
    description:
      "To read a large thread in pieces: the id of the last comment of the previous piece, as that piece's `next` gives it.",
  });

const nodeKind = z
  .enum(["t1", "more"])
  .meta({ description: "t1 for a comment; more for comments the API collapsed beyond `limit`." });

const nodeData = commentSchema.extend({
  count: z
    .number()
    .int()
    .optional()
    .meta({ description: "On a more node: how many comments it stands for." }),
  fetch: z.string().optional().meta({ description: "On a more node: how to fetch what it stands for." }),
});

/** Tree nodes as presented; no JSON Schema reference can describe recursion for every vendor. */
const replyAtAnyDepth = z
  .looseObject({ kind: nodeKind })
  .meta({ description: "A reply: a node of this same shape (kind, data, replies)." });
const reply = z.object({ kind: nodeKind, data: nodeData, replies: z.array(replyAtAnyDepth) });
const treeNode = z.object({ kind: nodeKind, data: nodeData, replies: z.array(reply) });

export const getCommentTree = defineTool("getCommentTree", {
  title: "Get a post's comment tree",
  input: getCommentTreeParamsSchema.safeExtend({
    fields: fieldsArgument("comment"),
    resume_after: resumeAfter,
  }),
  data: z.array(treeNode),
  pages: true,
  httpParams: (args) => ({ post_id: args.post_id, limit: args.limit }),
  present: (tool, envelope, args, budget) => presentCommentTree(tool, envelope as never, args, budget),
  describe: (budget) => [
    "Returns the nested comment thread of one post (post_id with or without t3_).",
    "`limit` caps the comments fetched (default 50, max 500); parts beyond it come back as nodes of kind `more`, with their comment count and how to fetch them.",
    "Each comment has id, body, author, created_utc, score, parent_id and permalink; `fields` adds others.",
    `A result stays within ${budget} bytes: a larger thread comes in pieces, depth first, each cut at a whole comment; a piece's \`next\` holds the arguments of the next one (the same ones plus resume_after). Each piece costs 1 credit.`,
    "Use it for a post's discussion and for its true comment count, which is right even while a fresh post's num_comments reads 0.",
  ],
});
