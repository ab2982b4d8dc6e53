import type { Corpus } from "../corpus/types.ts";
import { project } from "../query/fields.ts";
import type { CachedItem } from "./bounded-cache.ts";
import { BoundedCache } from "./bounded-cache.ts";
import { buildComment } from "./comment.ts";
import type { Json, RenderContext } from "./context.ts";
import { TitleBook } from "./item-text.ts";
import { markdownToHtml } from "./md2html.ts";
import { buildPost } from "./post.ts";
import { buildSubreddit } from "./subreddit.ts";
import { itemState } from "./time-state.ts";

export interface OutputOptions {
  /** Projection (docs/upstream.md#selectable-fields): exactly these keys. */
  readonly fields?: readonly string[] | undefined;
  /** Adds selftext_html / body_html. */
  readonly md2html?: boolean | undefined;
}

/**
 * Turns corpus items into the JSON the upstream would send at a given time.
 * Built items and their JSON text are cached, keyed by their time state: a
 * benchmark asks for the same pages over and over, and building an item (its
 * text especially) costs far more than serving it.
 */
export class Renderer {
  readonly ctx: RenderContext;
  readonly subreddits: readonly Json[];
  readonly #posts = new BoundedCache(30_000);
  readonly #comments = new BoundedCache(50_000);

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

  /** The post as served now. Shared and frozen: copy it before changing it. */
  post(i: number, now: number): Readonly<Json> {
    return this.#post(i, now).item;
  }

  comment(c: number, now: number): Readonly<Json> {
    return this.#comment(c, now).item;
  }

  postJson(i: number, now: number, output: OutputOptions = {}): string {
    return render(this.#post(i, now), output, "selftext");
  }

  commentJson(c: number, now: number, output: OutputOptions = {}): string {
    return render(this.#comment(c, now), output, "body");
  }

  #post(i: number, now: number): CachedItem {
    const state = this.postState(i, now);
    return this.#posts.get(i, state, () => buildPost(this.ctx, i, state));
  }

  #comment(c: number, now: number): CachedItem {
    const state = this.commentState(c, now);
    return this.#comments.get(c, state, () => buildComment(this.ctx, c, state));
  }
}

function render(cached: CachedItem, output: OutputOptions, textField: "selftext" | "body"): string {
  if (output.fields || output.md2html) return shape(cached.item, output, textField);
  cached.json ??= JSON.stringify(cached.item);
  return cached.json;
}

/** md2html adds the HTML of the text field, unless a projection leaves that field out. */
function shape(item: Readonly<Json>, output: OutputOptions, textField: "selftext" | "body"): string {
  const shaped = output.fields ? project(item, output.fields) : { ...item };
  if (output.md2html && textField in shaped) {
    shaped[`${textField}_html`] = markdownToHtml(String(item[textField] ?? ""));
  }
  return JSON.stringify(shaped);
}
