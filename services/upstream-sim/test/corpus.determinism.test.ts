import { describe, expect, it } from "vitest";
import { generateCorpus } from "../src/corpus/corpus.ts";
import type { Corpus } from "../src/corpus/types.ts";
import { Renderer } from "../src/render/renderer.ts";
import { ANCHOR } from "./support.ts";

const NOW = ANCHOR + 600;

/** Everything a client could observe: columns, users, subreddits and rendered items. */
function fingerprint(corpus: Corpus) {
  const renderer = new Renderer(corpus);
  const sample = (count: number) => Array.from({ length: 50 }, (_, k) => Math.floor((k * count) / 50));
  return {
    posts: { ...corpus.posts },
    comments: { ...corpus.comments },
    users: corpus.users,
    subreddits: renderer.subreddits,
    postJson: sample(corpus.posts.count).map((p) => renderer.postJson(p, NOW)),
    commentJson: sample(corpus.comments.count).map((c) => renderer.commentJson(c, NOW)),
  };
}

describe("corpus generation", () => {
  it("builds identical corpora from the same seed and anchor", () => {
    const a = generateCorpus({ seed: 5, anchor: ANCHOR, scale: 0.05 });
    const b = generateCorpus({ seed: 5, anchor: ANCHOR, scale: 0.05 });
    expect(fingerprint(a)).toEqual(fingerprint(b));
  });

  it("builds a different corpus from a different seed", () => {
    const a = generateCorpus({ seed: 5, anchor: ANCHOR, scale: 0.05 });
    const b = generateCorpus({ seed: 6, anchor: ANCHOR, scale: 0.05 });
    expect(a.posts.author).not.toEqual(b.posts.author);
    expect(fingerprint(a).postJson).not.toEqual(fingerprint(b).postJson);
  });

  it("shifts every timestamp, and nothing else, when only the anchor moves", () => {
    const a = generateCorpus({ seed: 5, anchor: ANCHOR, scale: 0.05 });
    const b = generateCorpus({ seed: 5, anchor: ANCHOR + 1000, scale: 0.05 });
    expect(b.posts.idNum).toEqual(a.posts.idNum);
    expect(b.comments.created).toEqual(a.comments.created);
    expect(new Renderer(b).post(10, NOW + 1000)["created_utc"]).toBe(
      (new Renderer(a).post(10, NOW)["created_utc"] as number) + 1000,
    );
  });

  it("generates the default size (about 30k posts, 300k comments, 3k users, 40 subreddits) in a few seconds", () => {
    const corpus = generateCorpus({ seed: 42, anchor: ANCHOR });
    expect(corpus.subreddits).toHaveLength(40);
    expect(corpus.posts.count).toBeGreaterThan(29_000);
    expect(corpus.comments.count).toBeGreaterThan(250_000);
    expect(corpus.comments.count).toBeLessThan(350_000);
    expect(corpus.authors).toHaveLength(3000);
    // Measured at 0.7–1.8 s alone on 2 cores; up to 9 s while the whole test suite runs
    // in parallel. The bound catches a regression in kind, not in degree.
    expect(corpus.generationMs).toBeLessThan(20_000);
  }, 60_000);
});
