import type { Corpus } from "../corpus/types.ts";
import { project } from "../query/fields.ts";
import { BoundedCache } from "./bounded-cache.ts";
import { buildComment } from "./comment.ts";
import type { Json, RenderContext } from "./context.ts";
import { TitleBook } from "./item-text.ts";
import { markdownToHtml } from "./md2html.ts";
import { buildPost } from "./post.ts";
import { buildSubreddit } from "./subreddit.ts";
import { itemState } from "./time-state.ts";

export interface OutputOptions {
  /** Projection (upstream.md §1.4): exactly these keys. */
  readonly fields?: readonly string[] | undefined;
  /** Adds selftext_html / body_html. */
  readonly md2html?: boolean | undefined;
}

/**
 * Turns corpus items into the JSON the upstream would send at a given time.
 * Full items are cached as strings, keyed by their time state, because a page of
 * a busy subreddit is requested over and over in benchmarks.
 */
export class Renderer {
  readonly ctx: RenderContext;
  readonly subreddits: readonly Json[];
  readonly #posts = new BoundedCache(40_000);
  readonly #comments = new BoundedCache(60_000);

  constructor(corpus: Corpus) {
    this.ctx = { corpus, titles: new TitleBook(corpus) };
    this.subreddits = corpus.subreddits.map(buildSubreddit);
  }

  postState(i: number, now: number): number {
    const created = this.ctx.corpus.anchor + (this.ctx.corpus.posts.created[i] as number);
    return itemState(created, created, now);
  }

  commentState(c: number, now: number): number {
    const { anchor, comments, posts } = this.ctx.corpus;
    const postCreated = anchor + (posts.created[comments.post[c] as number] as number);
    return itemState(anchor + (comments.created[c] as number), postCreated, now);
  }

  post(i: number, now: number): Json {
    return buildPost(this.ctx, i, this.postState(i, now));
  }

  comment(c: number, now: number): Json {
    return buildComment(this.ctx, c, this.commentState(c, now));
  }

  postJson(i: number, now: number, output: OutputOptions = {}): string {
    if (output.fields || output.md2html) return shape(this.post(i, now), output, "selftext");
    const state = this.postState(i, now);
    return cached(this.#posts, i, state, () => buildPost(this.ctx, i, state));
  }

  commentJson(c: number, now: number, output: OutputOptions = {}): string {
    if (output.fields || output.md2html) return shape(this.comment(c, now), output, "body");
    const state = this.commentState(c, now);
    return cached(this.#comments, c, state, () => buildComment(this.ctx, c, state));
  }
}

function cached(cache: BoundedCache, key: number, state: number, build: () => Json): string {
  const hit = cache.get(key, state);
  if (hit !== undefined) return hit;
  const json = JSON.stringify(build());
  cache.set(key, state, json);
  return json;
}

/** md2html adds the HTML of the text field, unless a projection leaves that field out. */
function shape(item: Json, output: OutputOptions, textField: "selftext" | "body"): string {
  const shaped = output.fields ? project(item, output.fields) : item;
  if (output.md2html && textField in shaped) {
    shaped[`${textField}_html`] = markdownToHtml(String(item[textField] ?? ""));
  }
  return JSON.stringify(shaped);
}
