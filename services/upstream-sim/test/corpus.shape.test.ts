import { beforeAll, describe, expect, it } from "vitest";
import { CommentFlag, PostFlag, TIME } from "../src/corpus/constants.ts";
import type { Corpus } from "../src/corpus/types.ts";
import { ANCHOR, testCorpus } from "./support.ts";

let corpus: Corpus;
beforeAll(() => {
  corpus = testCorpus(7, 0.2);
});

const share = (count: number, total: number) => count / total;

describe("the generated corpus", () => {
  it("has subreddits whose names start with at least 20 different letters", () => {
    const letters = new Set(corpus.subreddits.map((sub) => sub.name[0]!.toLowerCase()));
    expect(letters.size).toBeGreaterThanOrEqual(20);
  });

  it("gives every subreddit 3 to 10 rules with 0-based priorities and a known kind", () => {
    for (const sub of corpus.subreddits) {
      expect(sub.rules.length).toBeGreaterThanOrEqual(3);
      expect(sub.rules.length).toBeLessThanOrEqual(10);
      expect(sub.rules.map((rule) => rule.priority)).toEqual(sub.rules.map((_, i) => i));
      for (const rule of sub.rules) expect(["link", "comment", "all"]).toContain(rule.kind);
    }
  });

  it("uses unique 7-character base36 ids that grow with created_utc", () => {
    for (const table of [corpus.posts, corpus.comments]) {
      let disorders = 0;
      for (let i = 1; i < table.count; i++) {
        if (!(table.idNum[i]! > table.idNum[i - 1]! && table.created[i]! >= table.created[i - 1]!))
          disorders++;
      }
      expect(disorders).toBe(0);
      expect(table.idNum[0]!.toString(36)).toMatch(/^[0-9a-z]{7}$/);
      expect(table.idNum[table.count - 1]!.toString(36)).toMatch(/^[0-9a-z]{7}$/);
    }
  });

  it("has 5–10% deleted or removed posts and comments", () => {
    const hiddenPosts = corpus.posts.flags.filter(
      (f) => (f & (PostFlag.deleted | PostFlag.removed)) !== 0,
    ).length;
    const hiddenComments = corpus.comments.flags.filter(
      (f) => (f & (CommentFlag.deleted | CommentFlag.removed)) !== 0,
    ).length;
    for (const ratio of [
      share(hiddenPosts, corpus.posts.count),
      share(hiddenComments, corpus.comments.count),
    ]) {
      expect(ratio).toBeGreaterThan(0.05);
      expect(ratio).toBeLessThan(0.1);
    }
  });

  it("has negative comment scores and both self and link posts", () => {
    expect(corpus.comments.score.some((score) => score < 0)).toBe(true);
    const self = corpus.posts.flags.filter((f) => (f & PostFlag.self) !== 0).length;
    expect(share(self, corpus.posts.count)).toBeGreaterThan(0.3);
    expect(share(self, corpus.posts.count)).toBeLessThan(0.9);
  });

  it("has many posts sharing a created_utc second with their neighbour", () => {
    let shared = 0;
    for (let p = 1; p < corpus.posts.count; p++)
      if (corpus.posts.created[p] === corpus.posts.created[p - 1]) shared++;
    expect(share(shared, corpus.posts.count)).toBeGreaterThan(0.1);
  });

  it("places every comment after its post and parent, within the comment window", () => {
    const { comments, posts } = corpus;
    const misplaced: number[] = [];
    for (let c = 0; c < comments.count; c++) {
      const sincePost = comments.created[c]! - posts.created[comments.post[c]!]!;
      const parent = comments.parent[c]!;
      const parentOk =
        parent < 0 ||
        (comments.post[parent] === comments.post[c] && comments.created[c]! >= comments.created[parent]!);
      if (!(sincePost > 0 && sincePost < TIME.maxCommentDelay && parentOk)) misplaced.push(c);
    }
    expect(misplaced).toEqual([]);
  });

  it("keeps each post's comment total equal to the comments pointing at it", () => {
    const counted = new Int32Array(corpus.posts.count);
    for (let c = 0; c < corpus.comments.count; c++) counted[corpus.comments.post[c]!]! += 1;
    expect(counted).toEqual(corpus.posts.numComments);
  });

  it("spans about six months back and keeps posts arriving for days after the anchor", () => {
    const first = corpus.posts.created[0]!;
    const last = corpus.posts.created[corpus.posts.count - 1]!;
    expect(first).toBeLessThan(-170 * TIME.day);
    expect(last).toBeGreaterThan(5 * TIME.day);
    const fresh = corpus.posts.created.filter((t) => t <= 0 && t > -TIME.blackout).length;
    expect(fresh).toBeGreaterThan(10);
  });

  it("leaves some active authors out of the user index and some index ids null", () => {
    const missing = corpus.authors.filter((author, i) => i > 1 && !author.indexed);
    expect(share(missing.length, corpus.authors.length)).toBeGreaterThan(0.08);
    expect(corpus.users.some((user) => user.id === null)).toBe(true);
    expect(corpus.users.some((user) => user.id !== null)).toBe(true);
  });

  it("computes each user's _meta from their own items up to the stats time", () => {
    for (const user of corpus.users.filter((_, i) => i % 25 === 0)) {
      const a = corpus.index.authorByName.get(user.author.toLowerCase())!;
      const { posts, comments } = corpus;
      const postTimes: number[] = [];
      let postKarma = 0;
      for (let p = 0; p < posts.count; p++) {
        if (posts.author[p] !== a || ANCHOR + posts.created[p]! > user._meta.post_stats_updated_at) continue;
        postTimes.push(ANCHOR + posts.created[p]!);
        postKarma += posts.score[p]!;
      }
      let commentCount = 0;
      let commentKarma = 0;
      for (let c = 0; c < comments.count; c++) {
        if (comments.author[c] !== a || ANCHOR + comments.created[c]! > user._meta.comment_stats_updated_at)
          continue;
        commentCount += 1;
        commentKarma += comments.score[c]!;
      }
      expect(user._meta).toMatchObject({
        num_posts: postTimes.length,
        post_karma: postKarma,
        num_comments: commentCount,
        comment_karma: commentKarma,
        total_karma: postKarma + commentKarma,
        earliest_post_at: postTimes[0] ?? null,
        last_post_at: postTimes.at(-1) ?? null,
      });
    }
  });
});
