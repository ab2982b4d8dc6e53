import { AUTHOR, CommentFlag, TIME } from "../corpus/constants.ts";
import type { Json, RenderContext } from "./context.ts";
import { authorFields, subredditFields } from "./context.ts";
import { bodyOf, itemFraction, TextTag } from "./item-text.ts";
import { editDelay } from "./post.ts";
import { inBlackout, isArchived } from "./time-state.ts";

/** The full comment object (docs/upstream.md#comment-fields), as in the dumps (`replies` is ""). */
export function buildComment(ctx: RenderContext, c: number, state: number): Json {
  const { corpus } = ctx;
  const comments = corpus.comments;
  const post = comments.post[c] as number;
  const postId = (corpus.posts.idNum[post] as number).toString(36);
  const id = (comments.idNum[c] as number).toString(36);
  const created = corpus.anchor + (comments.created[c] as number);
  const flags = comments.flags[c] as number;
  const sub = corpus.subreddits[corpus.posts.sub[post] as number];
  return {
    id,
    name: `t1_${id}`,
    body: body(ctx, c, flags),
    ...authorFields(corpus, comments.author[c] as number),
    created_utc: created,
    created,
    retrieved_on:
      created + 1 + Math.floor(itemFraction(corpus, TextTag.misc, comments.idNum[c] as number) * 60),
    link_id: `t3_${postId}`,
    parent_id: parentId(ctx, c, postId),
    ...subredditFields(corpus, corpus.posts.sub[post] as number),
    permalink: `/r/${sub?.name}/comments/${postId}/${ctx.titles.slug(post)}/${id}/`,
    ...scoring(ctx, c, flags, state),
    is_submitter: isSubmitter(ctx, c),
    distinguished: flags & CommentFlag.distinguished ? "moderator" : null,
    stickied: (flags & CommentFlag.stickied) !== 0,
    locked: false,
    archived: isArchived(state),
    ...collapse(ctx, c, flags, state),
    edited:
      !inBlackout(state) && flags & CommentFlag.edited
        ? created + editDelay(comments.idNum[c] as number)
        : false,
    gilded: 0,
    total_awards_received: 0,
    replies: "",
    _meta: commentMeta(created, flags, state),
  };
}

function body(ctx: RenderContext, c: number, flags: number): string {
  if (flags & CommentFlag.deleted) return "[deleted]";
  if (flags & CommentFlag.removed) return "[removed]";
  return bodyOf(ctx.corpus, c);
}

function parentId(ctx: RenderContext, c: number, postId: string): string {
  const parent = ctx.corpus.comments.parent[c] as number;
  if (parent < 0) return `t3_${postId}`;
  return `t1_${(ctx.corpus.comments.idNum[parent] as number).toString(36)}`;
}

/** Scores are 1 during the blackout and may be negative afterwards. */
function scoring(ctx: RenderContext, c: number, flags: number, state: number): Json {
  const fresh = inBlackout(state);
  const score = fresh ? 1 : (ctx.corpus.comments.score[c] as number);
  return {
    score,
    ups: score,
    downs: 0,
    score_hidden: fresh,
    controversiality: !fresh && flags & CommentFlag.controversial ? 1 : 0,
  };
}

function isSubmitter(ctx: RenderContext, c: number): boolean {
  const author = ctx.corpus.comments.author[c] as number;
  const op = ctx.corpus.posts.author[ctx.corpus.comments.post[c] as number] as number;
  return author === op && author > AUTHOR.automoderator;
}

function collapse(ctx: RenderContext, c: number, flags: number, state: number): Json {
  const lowScore = !inBlackout(state) && (ctx.corpus.comments.score[c] as number) <= -5;
  const reason = flags & CommentFlag.deleted ? "DELETED" : lowScore ? "LOW_SCORE" : null;
  return { collapsed: reason !== null, collapsed_reason_code: reason };
}

function commentMeta(created: number, flags: number, state: number): Json {
  if (inBlackout(state)) return {};
  const meta: Json = { retrieved_2nd_on: created + TIME.blackout };
  if (flags & (CommentFlag.deleted | CommentFlag.removed)) {
    meta["was_deleted_later"] = true;
    meta["removal_type"] = flags & CommentFlag.deleted ? "deleted" : "removed";
  }
  if (flags & CommentFlag.edited) meta["is_edited"] = true;
  return meta;
}
