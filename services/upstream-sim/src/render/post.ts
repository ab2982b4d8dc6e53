import { PostFlag, TIME } from "../corpus/constants.ts";
import type { Json, RenderContext } from "./context.ts";
import { authorFields, subredditFields } from "./context.ts";
import { itemFraction, selftextOf, TextTag } from "./item-text.ts";
import { linkTarget } from "./link-target.ts";
import { inBlackout, isArchived } from "./time-state.ts";

/** The full post object (docs/upstream.md#post-fields) as served at a time with the given item state. */
export function buildPost(ctx: RenderContext, i: number, state: number): Json {
  const { corpus } = ctx;
  const posts = corpus.posts;
  const id = (posts.idNum[i] as number).toString(36);
  const created = corpus.anchor + (posts.created[i] as number);
  const flags = posts.flags[i] as number;
  const permalink = postPermalink(ctx, i);
  return {
    id,
    name: `t3_${id}`,
    title: ctx.titles.title(i),
    selftext: selftext(ctx, i, flags),
    ...authorFields(corpus, posts.author[i] as number),
    author_is_blocked: false,
    created_utc: created,
    created,
    retrieved_on: created + 1 + Math.floor(itemFraction(corpus, TextTag.misc, posts.idNum[i] as number) * 90),
    ...subredditFields(corpus, posts.sub[i] as number),
    subreddit_subscribers: corpus.subreddits[posts.sub[i] as number]?.subscribers,
    permalink,
    ...linkFields(ctx, i, permalink, flags),
    ...counters(ctx, i, state),
    ...moderation(ctx, i, flags, state),
    ...fillerFlags(flags),
    _meta: postMeta(created, flags, state),
  };
}

function postPermalink(ctx: RenderContext, i: number): string {
  const { posts, subreddits } = ctx.corpus;
  const id = (posts.idNum[i] as number).toString(36);
  return `/r/${subreddits[posts.sub[i] as number]?.name}/comments/${id}/${ctx.titles.slug(i)}/`;
}

export function postUrl(ctx: RenderContext, i: number): string {
  return linkTarget(ctx.corpus, i, postPermalink(ctx, i), ctx.titles.slug(i)).url;
}

export function linkFlairOf(ctx: RenderContext, i: number): string | null {
  const flair = ctx.corpus.posts.flair[i] as number;
  return flair > 0
    ? (ctx.corpus.subreddits[ctx.corpus.posts.sub[i] as number]?.flairs[flair - 1] ?? null)
    : null;
}

function selftext(ctx: RenderContext, i: number, flags: number): string {
  if (flags & PostFlag.deleted) return "[deleted]";
  if (flags & PostFlag.removed) return "[removed]";
  return flags & PostFlag.self ? selftextOf(ctx.corpus, i) : "";
}

function linkFields(ctx: RenderContext, i: number, permalink: string, flags: number): Json {
  const target = linkTarget(ctx.corpus, i, permalink, ctx.titles.slug(i));
  const isSelf = (flags & PostFlag.self) !== 0;
  const thumbnail =
    flags & PostFlag.over18 ? "nsfw" : flags & PostFlag.spoiler ? "spoiler" : target.thumbnail;
  return {
    url: target.url,
    ...(isSelf ? {} : { url_overridden_by_dest: target.url }),
    domain: target.domain,
    is_self: isSelf,
    is_video: target.isVideo,
    post_hint: target.postHint,
    thumbnail,
  };
}

/** During the blackout the first-fetch values show: score 1, no comments counted. */
function counters(ctx: RenderContext, i: number, state: number): Json {
  const posts = ctx.corpus.posts;
  const fresh = inBlackout(state);
  const score = fresh ? 1 : (posts.score[i] as number);
  const draw = itemFraction(ctx.corpus, TextTag.misc + 100, posts.idNum[i] as number);
  return {
    num_comments: fresh ? 0 : (posts.numComments[i] as number),
    score,
    ups: score,
    downs: 0,
    upvote_ratio: fresh ? 1 : upvoteRatio(draw),
    hide_score: fresh,
    num_crossposts: !fresh && draw > 0.95 ? 1 : 0,
  };
}

/** docs/upstream.md#post-fields: most posts sit at exactly 1, the rest spread over 0.50–0.99. */
function upvoteRatio(draw: number): number {
  return draw < 0.5 ? 1 : Math.round(draw * 99) / 100;
}

function moderation(ctx: RenderContext, i: number, flags: number, state: number): Json {
  const { corpus } = ctx;
  const posts = corpus.posts;
  const sub = corpus.subreddits[posts.sub[i] as number];
  const settled = !inBlackout(state);
  const crosspost = posts.crosspost[i] as number;
  const created = corpus.anchor + (posts.created[i] as number);
  return {
    over_18: (flags & PostFlag.over18) !== 0,
    spoiler: (flags & PostFlag.spoiler) !== 0,
    stickied: settled && (flags & PostFlag.stickied) !== 0,
    pinned: false,
    locked: settled && (flags & PostFlag.locked) !== 0,
    archived: isArchived(state),
    edited: settled && flags & PostFlag.edited ? created + editDelay(corpus.posts.idNum[i] as number) : false,
    distinguished: flags & PostFlag.distinguished ? "moderator" : null,
    link_flair_text: linkFlairOf(ctx, i),
    link_flair_type: "text",
    ...(crosspost >= 0 ? { crosspost_parent: `t3_${(posts.idNum[crosspost] as number).toString(36)}` } : {}),
    removed_by_category: removedBy(flags),
    suggested_sort: sub?.suggestedSort ?? null,
    gilded: 0,
    total_awards_received: 0,
  };
}

/** Edits seen by the second fetch happened within the blackout window. */
export function editDelay(idNum: number): number {
  return 60 + (idNum % (TIME.blackout - 120));
}

function removedBy(flags: number): string | null {
  if (flags & PostFlag.deleted) return "deleted";
  return flags & PostFlag.removed ? "moderator" : null;
}

function fillerFlags(flags: number): Json {
  const hidden = (flags & (PostFlag.deleted | PostFlag.removed)) !== 0;
  return {
    contest_mode: false,
    send_replies: true,
    is_original_content: (flags & PostFlag.originalContent) !== 0,
    is_meta: false,
    is_crosspostable: !hidden,
    media_only: false,
    no_follow: hidden,
    quarantine: false,
    saved: false,
    clicked: false,
    hidden: false,
    visited: false,
    can_gild: false,
    can_mod_post: false,
  };
}

/** Arctic Shift's own `_meta`; retrieved_2nd_on only once the second fetch happened. */
function postMeta(created: number, flags: number, state: number): Json {
  if (inBlackout(state)) return {};
  const meta: Json = { retrieved_2nd_on: created + TIME.blackout };
  if (flags & (PostFlag.deleted | PostFlag.removed)) {
    meta["was_deleted_later"] = true;
    meta["removal_type"] = flags & PostFlag.deleted ? "deleted" : "removed";
  }
  if (flags & PostFlag.edited) meta["is_edited"] = true;
  return meta;
}
