import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostInfo } from "../src/index.ts";
import { HOUR, startTestSim, type TestSim } from "./support.ts";
import { countTree } from "./tree-support.ts";

let sim: TestSim;
let fresh: PostInfo;

beforeAll(async () => {
  sim = await startTestSim();
  fresh = sim.probe.freshPost({ minComments: 2 })!;
});
afterAll(() => sim.close());

const post = async (id: string) => (await sim.get(`/api/posts/ids?ids=${id}`)).data[0];

describe("the 36-hour blackout", () => {
  it("always has fresh posts to show", () => {
    expect(fresh).toBeDefined();
    expect(sim.clock.seconds - fresh.created_utc).toBeLessThan(36 * HOUR);
  });

  it("shows a fresh post with score 1, no comments counted, hidden score and no retrieved_2nd_on", async () => {
    const served = await post(fresh.id);
    expect(served).toMatchObject({ score: 1, ups: 1, num_comments: 0, hide_score: true, upvote_ratio: 1 });
    expect(served._meta).not.toHaveProperty("retrieved_2nd_on");
  });

  it("still serves the fresh post's real comment tree, each comment with score 1", async () => {
    const nodes = (await sim.get(`/api/comments/tree?link_id=${fresh.id}&limit=25000`)).data;
    expect(countTree(nodes).shown).toBe(fresh.comment_count);
    const comments = (await sim.get(`/api/comments/search?link_id=${fresh.id}&limit=100`)).data;
    expect(
      comments.every(
        (comment: { score: number; score_hidden: boolean }) => comment.score === 1 && comment.score_hidden,
      ),
    ).toBe(true);
  });

  it("shows the second fetch once 36 hours have passed: real score, num_comments equal to the tree", async () => {
    const saved = sim.clock.seconds;
    sim.clock.seconds = fresh.created_utc + 36 * HOUR;
    try {
      const settled = await post(fresh.id);
      expect(settled._meta.retrieved_2nd_on).toBe(fresh.created_utc + 36 * HOUR);
      expect(settled.hide_score).toBe(false);
      expect(settled.score).toBe(
        sim.corpus.posts.score[sim.corpus.posts.idNum.indexOf(Number.parseInt(fresh.id, 36))],
      );
      const nodes = (await sim.get(`/api/comments/tree?link_id=${fresh.id}&limit=25000`)).data;
      expect(countTree(nodes).shown).toBe(settled.num_comments);
      expect(settled.num_comments).toBe(sim.probe.commentCount(fresh.id));
    } finally {
      sim.clock.seconds = saved;
    }
  });

  it("keeps posts arriving as the clock moves on", async () => {
    const newestNow = (await sim.get("/api/posts/search?limit=1")).data[0];
    const saved = sim.clock.seconds;
    sim.clock.seconds = saved + 2 * 24 * HOUR;
    try {
      const newestLater = (await sim.get("/api/posts/search?limit=1")).data[0];
      expect(newestLater.created_utc).toBeGreaterThan(newestNow.created_utc + 24 * HOUR);
      expect(newestLater).toMatchObject({ score: 1, num_comments: 0 });
      expect((await sim.get(`/api/posts/ids?ids=${fresh.id}`)).data[0].hide_score).toBe(false);
    } finally {
      sim.clock.seconds = saved;
    }
  });

  it("shows settled posts with retrieved_2nd_on 36 h after creation", async () => {
    const settled = sim.probe.settledPost()!;
    const served = await post(settled.id);
    expect(served._meta.retrieved_2nd_on).toBe(settled.created_utc + 36 * HOUR);
    expect(served.num_comments).toBe(settled.comment_count);
  });
});
