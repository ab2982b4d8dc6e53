/**
 * The upstream's post and comment objects (docs/upstream.md#reddit-object-fields) and the comment tree
 * built from them. They pass through untrimmed, so each schema documents and types the common fields
 * and lets every other upstream field through unchanged (loose objects). Every field is optional
 * because `fields` can trim a listed item to the names it asks for.
 */
import { z } from "zod";

const epochSeconds = z.number().int().meta({ description: "Epoch seconds." });
const fullname = (prefix: string, what: string) =>
  z.string().meta({ description: `Fullname of the ${what}: \`${prefix}\` followed by its id.` });

/** Fields posts and comments share, with the same meaning on both. */
const commonFields = {
  id: z.string().meta({ description: "Base36 id, without the kind prefix." }),
  author: z.string().meta({ description: "Username; `[deleted]` once the account is gone." }),
  author_fullname: fullname("t2_", "author's account").meta({
    description: "Fullname of the author's account (`t2_…`); absent when the account is deleted.",
  }),
  author_flair_text: z.string().nullable().meta({ description: "The author's flair in the community." }),
  author_premium: z.boolean(),
  created_utc: epochSeconds.meta({ description: "Creation time, epoch seconds. Listings page by it." }),
  created: epochSeconds.meta({ description: "Same value as created_utc." }),
  retrieved_on: epochSeconds.meta({ description: "When the archive first fetched the item." }),
  subreddit: z.string().meta({ description: "Community name, cased as on the site." }),
  subreddit_id: fullname("t5_", "community"),
  subreddit_name_prefixed: z.string().meta({ description: "`r/` followed by the community name." }),
  subreddit_type: z.string().meta({ description: "`public`, `restricted`, `user` (profile posts)…" }),
  score: z.number().int().meta({
    description: "Upvotes minus downvotes; pinned at 1 during the ~36 h blackout after creation.",
  }),
  ups: z.number().int().meta({ description: "Equals score." }),
  downs: z.number().int().meta({ description: "Always 0." }),
  distinguished: z
    .string()
    .nullable()
    .meta({ description: "`moderator` or `admin` when so marked; else null." }),
  stickied: z.boolean(),
  locked: z.boolean(),
  archived: z.boolean().meta({ description: "True once the item is too old to vote on or reply to." }),
  edited: z.union([z.literal(false), z.number()]).meta({
    description: "false, or the epoch seconds of the last edit.",
  }),
  gilded: z.number().int().meta({ description: "0: awards were retired." }),
  total_awards_received: z.number().int().meta({ description: "0: awards were retired." }),
};

const archiveMeta = z
  .looseObject({
    retrieved_2nd_on: epochSeconds.meta({
      description: "When the archive fetched the item again, ~36 h after creation; absent before that.",
    }),
    was_deleted_later: z.boolean(),
    was_initially_deleted: z.boolean(),
    removal_type: z.string().meta({ description: "`deleted`, `removed` or `removed by reddit`." }),
    is_edited: z.boolean(),
    edited_title: z.string(),
  })
  .partial()
  .meta({
    description: "The archive's own bookkeeping. No retrieved_2nd_on: score and counts are not final yet.",
  });

export const postSchema = z
  .looseObject({
    ...commonFields,
    name: fullname("t3_", "post"),
    title: z.string(),
    selftext: z.string().meta({
      description: "Body of a self post; empty for link posts; `[deleted]` or `[removed]` when gone.",
    }),
    author_is_blocked: z.boolean(),
    subreddit_subscribers: z.number().int().meta({ description: "Community size when fetched." }),
    permalink: z.string().meta({
      description: "Relative path on the upstream site: `/r/<community>/comments/<id>/<slug>/`.",
    }),
    url: z
      .string()
      .meta({ description: "Absolute URL: the external link, or the full permalink of a self post." }),
    url_overridden_by_dest: z.string().meta({ description: "The external link; link posts only." }),
    domain: z.string().meta({ description: "`self.<community>` for self posts, else the link's host." }),
    is_self: z.boolean().meta({ description: "True for a text post." }),
    is_video: z.boolean(),
    post_hint: z
      .string()
      .meta({ description: "`self`, `link`, `image`, `hosted:video`, `rich:video` or `gallery`." }),
    thumbnail: z.string().meta({ description: "`self`, `default`, `nsfw`, `spoiler` or an image URL." }),
    num_comments: z.number().int().meta({
      description: "Reads 0 during the ~36 h blackout; the comment tree gives a true count.",
    }),
    upvote_ratio: z.number().meta({ description: "Share of upvotes, 0 to 1." }),
    hide_score: z.boolean().meta({ description: "True while the score is hidden (the blackout)." }),
    over_18: z.boolean().meta({ description: "Marked NSFW." }),
    spoiler: z.boolean(),
    pinned: z.boolean(),
    link_flair_text: z.string().nullable(),
    link_flair_type: z.string().meta({ description: "`text` or `richtext`." }),
    num_crossposts: z.number().int(),
    crosspost_parent: fullname("t3_", "original post").meta({
      description: "Fullname of the original post; crossposts only.",
    }),
    removed_by_category: z.string().nullable().meta({
      description:
        "Why the post is gone: `moderator`, `deleted`, `reddit`, `automod_filtered`, `author`…; null if not.",
    }),
    suggested_sort: z.string().nullable().meta({ description: "The community's suggested comment order." }),
    contest_mode: z.boolean(),
    send_replies: z.boolean(),
    is_original_content: z.boolean(),
    is_meta: z.boolean(),
    is_crosspostable: z.boolean(),
    media_only: z.boolean(),
    no_follow: z.boolean(),
    quarantine: z.boolean(),
    saved: z.boolean(),
    clicked: z.boolean(),
    hidden: z.boolean(),
    visited: z.boolean(),
    can_gild: z.boolean(),
    can_mod_post: z.boolean(),
    _meta: archiveMeta,
  })
  .partial()
  .meta({
    id: "Post",
    description:
      "An upstream post (`t3`), untrimmed unless `fields` names the fields to keep. The fields below are the common ones; any other upstream field passes through unchanged.",
  });
export type Post = z.infer<typeof postSchema>;

export const commentSchema = z
  .looseObject({
    ...commonFields,
    name: fullname("t1_", "comment"),
    body: z.string().meta({ description: "Markdown text; `[deleted]` or `[removed]` when gone." }),
    link_id: fullname("t3_", "post the comment belongs to"),
    parent_id: z
      .string()
      .meta({ description: "Fullname of the immediate parent: the post (`t3_…`) or a comment (`t1_…`)." }),
    permalink: z.string().meta({
      description: "Relative path on the upstream site: `/r/<community>/comments/<post>/<slug>/<id>/`.",
    }),
    score_hidden: z.boolean().meta({ description: "True while the score is hidden (the blackout)." }),
    controversiality: z.number().int().meta({ description: "1 for a controversial comment, else 0." }),
    is_submitter: z.boolean().meta({ description: "The commenter wrote the post." }),
    collapsed: z.boolean(),
    collapsed_reason_code: z.string().nullable().meta({ description: "`DELETED`, `LOW_SCORE` or null." }),
    replies: z.string().meta({
      description: "Empty in listings; in the comment tree the replies are the node's `replies` instead.",
    }),
    depth: z.number().int().meta({ description: "Nesting level, 0 for top level; comment tree only." }),
    _meta: archiveMeta,
  })
  .partial()
  .meta({
    id: "Comment",
    description:
      "An upstream comment (`t1`), untrimmed unless `fields` names the fields to keep. The fields below are the common ones; any other upstream field passes through unchanged.",
  });
export type Comment = z.infer<typeof commentSchema>;

export const moreStubSchema = z
  .looseObject({
    count: z.number().int().meta({ description: "Comments in the collapsed part of the thread." }),
    children: z
      .array(z.string())
      .meta({ description: "Ids of the collapsed comments directly below the parent." }),
    id: z.string().meta({ description: "Id of the first collapsed comment." }),
    name: z.string().meta({ description: "Fullname of the first collapsed comment." }),
    parent_id: z.string().meta({ description: "Fullname of the parent of the collapsed comments." }),
    depth: z.number().int().meta({ description: "Nesting level of the collapsed comments." }),
  })
  .meta({
    id: "MoreStub",
    description:
      "A collapsed part of a thread, cut by the tree's `limit`: ids only, no bodies. Fetch the comments with GET /v1/comments?ids=…",
  });
export type MoreStub = z.infer<typeof moreStubSchema>;

export type CommentTreeNode =
  | { kind: "t1"; data: Comment; replies: CommentTreeNode[] }
  | { kind: "more"; data: MoreStub; replies: CommentTreeNode[] };

const commentNodeSchema = z
  .object({
    kind: z.literal("t1").meta({ description: "A comment." }),
    data: commentSchema,
    get replies(): z.ZodArray<z.ZodType<CommentTreeNode>> {
      return z.array(commentTreeNodeSchema).meta({ description: "Direct replies." });
    },
  })
  .meta({ id: "CommentNode", description: "A comment and its replies." });

const moreNodeSchema = z
  .object({
    kind: z.literal("more").meta({ description: "A collapsed part of the thread." }),
    data: moreStubSchema,
    get replies(): z.ZodArray<z.ZodType<CommentTreeNode>> {
      return z.array(commentTreeNodeSchema).max(0).meta({ description: "Always empty." });
    },
  })
  .meta({ id: "MoreNode", description: "Stands for the comments the tree's `limit` cut." });

export const commentTreeNodeSchema: z.ZodType<CommentTreeNode> = z
  .discriminatedUnion("kind", [commentNodeSchema, moreNodeSchema])
  .meta({
    id: "CommentTreeNode",
    description:
      "A node of the comment tree: a comment (`t1`) with its replies, or a `more` stub standing for comments left out; a stub's `count` is the upstream's, passed on as sent.",
  });
