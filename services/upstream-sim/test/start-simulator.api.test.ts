import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../src/index.ts";
import { countTree } from "./tree-support.ts";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, scale: 0.05 });
});
afterAll(() => sim.close());

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field.
const get = async (path: string): Promise<any> =>
  ((await (await fetch(`${sim.url}${path}`)).json()) as { data: unknown }).data;

describe("startSimulator", () => {
  it("serves on a free loopback port and exposes the corpus it serves", async () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.corpus.seed).toBe(3);
    expect(await get("/api/subreddits/search?limit=100")).toHaveLength(sim.probe.subredditNames().length);
  });

  it("lists a subreddit's posts exactly as post search pages them", async () => {
    const sub = sim.probe.subredditNames()[5]!;
    const served = (await get(`/api/posts/search?subreddit=${sub}&limit=10`)).map(
      (post: { id: string }) => post.id,
    );
    expect(sim.probe.posts({ subreddit: sub }, 10).map((post) => post.id)).toEqual(served);
  });

  it("knows a fresh post in the blackout and a settled post, with their comment counts", async () => {
    const fresh = sim.probe.freshPost()!;
    expect(fresh.in_blackout).toBe(true);
    expect(sim.probe.post(fresh.id)).toMatchObject({ score: 1, num_comments: 0 });
    const settled = sim.probe.settledPost({ minComments: 3 })!;
    const tree = await get(`/api/comments/tree?link_id=${settled.id}&limit=25000`);
    expect(countTree(tree).shown).toBe(sim.probe.commentCount(settled.id));
    expect(sim.probe.post(settled.id)?.["num_comments"]).toBe(settled.comment_count);
  });

  it("knows an indexed user and an active author missing from the index", async () => {
    const known = sim.probe.knownUser();
    expect(await get(`/api/users/search?author=${known.author}`)).toEqual([known]);
    const missing = sim.probe.missingUser();
    expect(missing).not.toBe("");
    expect(sim.probe.user(missing)).toBeUndefined();
    expect(await get(`/api/users/search?author=${missing}`)).toEqual([]);
  });

  it("returns the served object for a post or comment id, and undefined for unknown ids", async () => {
    const [comment] = await get("/api/comments/search?limit=1");
    expect(sim.probe.comment(comment.id)).toEqual(comment);
    expect(sim.probe.post("zzzzzzz")).toBeUndefined();
    expect(sim.probe.commentCount("zzzzzzz")).toBe(-1);
  });
});
