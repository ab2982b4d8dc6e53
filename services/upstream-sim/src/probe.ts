import { AUTHOR, TIME } from "./corpus/constants.ts";
import type { Corpus, UserRecord } from "./corpus/types.ts";
import { findComment, findPost, parseId } from "./query/lookup.ts";
import { ThreadView } from "./query/thread-view.ts";
import type { Json } from "./render/context.ts";
import { Renderer } from "./render/renderer.ts";

/** A post as tests need to know it, at the probe's current time. */
export interface PostInfo {
  readonly id: string;
  readonly subreddit: string;
  readonly author: string;
  readonly created_utc: number;
  /** Comments in its tree now (what the tree endpoint accounts for). */
  readonly comment_count: number;
  readonly in_blackout: boolean;
}

export interface PostQuery {
  readonly subreddit?: string;
  readonly minComments?: number;
}

/**
 * Read-only questions about a corpus, answered at the clock's current time, so
 * that tests elsewhere can assert against what the simulator serves.
 */
export class CorpusProbe {
  readonly corpus: Corpus;
  readonly #clock: () => number;
  readonly #renderer: Renderer;

  constructor(corpus: Corpus, clock: () => number = Date.now) {
    this.corpus = corpus;
    this.#clock = clock;
    this.#renderer = new Renderer(corpus);
  }

  get now(): number {
    return Math.floor(this.#clock() / 1000);
  }

  subredditNames(): string[] {
    return this.corpus.subreddits.map((sub) => sub.name);
  }

  /** Posts that exist now, newest first, optionally of one subreddit (any case). */
  posts(query: PostQuery = {}, limit = 25): PostInfo[] {
    return this.#scan(query, limit, () => true);
  }

  /** A post younger than 36 h: score 1, num_comments 0 and no retrieved_2nd_on, yet comments exist. */
  freshPost(query: PostQuery = { minComments: 1 }): PostInfo | undefined {
    return this.#scan(query, 1, (info) => info.in_blackout)[0];
  }

  /** A post past the blackout, whose num_comments equals its comment count. */
  settledPost(query: PostQuery = { minComments: 1 }): PostInfo | undefined {
    return this.#scan(query, 1, (info) => !info.in_blackout)[0];
  }

  postInfo(id: string): PostInfo | undefined {
    const p = this.#postIndex(id);
    return p < 0 ? undefined : this.#info(p);
  }

  /** The post object exactly as the simulator serves it now. */
  post(id: string): Json | undefined {
    const p = this.#postIndex(id);
    return p < 0 ? undefined : this.#renderer.post(p, this.now);
  }

  comment(id: string): Json | undefined {
    const idNum = parseId(id, "t1");
    const c = idNum === undefined ? -1 : findComment(this.corpus, idNum, this.now);
    return c < 0 ? undefined : this.#renderer.comment(c, this.now);
  }

  /** Comments in the post's tree now; -1 for an unknown post. */
  commentCount(postId: string): number {
    return this.postInfo(postId)?.comment_count ?? -1;
  }

  /** The indexed user with the most karma who has both posts and comments. */
  knownUser(): UserRecord {
    const active = this.corpus.users.filter((u) => u._meta.num_posts > 0 && u._meta.num_comments > 0);
    return active.reduce((best, u) => (u._meta.total_karma > best._meta.total_karma ? u : best));
  }

  user(name: string): UserRecord | undefined {
    return this.corpus.userByName.get(name.replace(/^\/?u\//i, "").toLowerCase());
  }

  /** An author with posts and comments who is absent from the user index (docs/upstream.md#response-shapes). */
  missingUser(): string {
    const { index, authors } = this.corpus;
    const hasItems = (a: number) =>
      (index.postsByAuthor.offsets[a + 1] as number) > (index.postsByAuthor.offsets[a] as number) &&
      (index.commentsByAuthor.offsets[a + 1] as number) > (index.commentsByAuthor.offsets[a] as number);
    const found = authors.findIndex(
      (author, a) => a > AUTHOR.automoderator && !author.indexed && hasItems(a),
    );
    return authors[found]?.name ?? "";
  }

  #postIndex(id: string): number {
    const idNum = parseId(id, "t3");
    return idNum === undefined ? -1 : findPost(this.corpus, idNum, this.now);
  }

  #info(p: number): PostInfo {
    const { posts, subreddits, authors, anchor } = this.corpus;
    const created = anchor + (posts.created[p] as number);
    const view = new ThreadView(this.corpus, p, this.now);
    return {
      id: (posts.idNum[p] as number).toString(36),
      subreddit: subreddits[posts.sub[p] as number]?.name ?? "",
      author: authors[posts.author[p] as number]?.name ?? "[deleted]",
      created_utc: created,
      comment_count: view.sliceTotal(view.topLevel(p)),
      in_blackout: this.now < created + TIME.blackout,
    };
  }

  #scan(query: PostQuery, limit: number, accept: (info: PostInfo) => boolean): PostInfo[] {
    const { posts, anchor, index } = this.corpus;
    const sub =
      query.subreddit === undefined ? undefined : index.subByName.get(query.subreddit.toLowerCase());
    const out: PostInfo[] = [];
    for (let p = posts.count - 1; p >= 0 && out.length < limit; p--) {
      if (anchor + (posts.created[p] as number) > this.now) continue;
      if (query.subreddit !== undefined && posts.sub[p] !== sub) continue;
      const info = this.#info(p);
      if (info.comment_count >= (query.minComments ?? 0) && accept(info)) out.push(info);
    }
    return out;
  }
}
