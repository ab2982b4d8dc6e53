import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostInfo } from "../src/index.ts";
import { createdTimes, isSorted, startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;
let thread: PostInfo;
let sub: string;

beforeAll(async () => {
  sim = await startTestSim();
  thread = sim.probe.settledPost({ minComments: 40 })!;
  sub = thread.subreddit;
});
afterAll(() => sim.close());

const search = (query: string) => sim.get(`/api/comments/search?${query}`);

describe("GET /api/comments/search", () => {
  it("returns 25 comments, newest first, by default", async () => {
    const answer = await search(`subreddit=${sub}`);
    expect(answer.data).toHaveLength(25);
    expect(isSorted(createdTimes(answer.data), "desc")).toBe(true);
    expect(
      answer.data.every((comment: { created_utc: number }) => comment.created_utc <= sim.clock.seconds),
    ).toBe(true);
  });

  it("returns the same comments for link_id with or without t3_", async () => {
    const bare = await search(`link_id=${thread.id}&limit=100`);
    const prefixed = await search(`link_id=t3_${thread.id}&limit=100`);
    expect(bare.data.length).toBe(Math.min(100, thread.comment_count));
    expect(prefixed.data).toEqual(bare.data);
    expect(bare.data.every((comment: { link_id: string }) => comment.link_id === `t3_${thread.id}`)).toBe(
      true,
    );
  });

  it("returns only top-level comments for an empty parent_id", async () => {
    const answer = await search(`link_id=${thread.id}&parent_id=&limit=100`);
    expect(answer.data.length).toBeGreaterThan(0);
    expect(
      answer.data.every((comment: { parent_id: string }) => comment.parent_id === `t3_${thread.id}`),
    ).toBe(true);
  });

  it("returns the replies of a comment for parent_id with or without t1_", async () => {
    const all = (await search(`link_id=${thread.id}&limit=100&sort=asc`)).data as {
      id: string;
      parent_id: string;
    }[];
    const parent = all.find((c) => all.some((reply) => reply.parent_id === `t1_${c.id}`))!;
    const expected = all.filter((c) => c.parent_id === `t1_${parent.id}`).map((c) => c.id);
    for (const form of [parent.id, `t1_${parent.id}`]) {
      const answer = await search(`parent_id=${form}&sort=asc&limit=100`);
      expect(answer.data.map((c: { id: string }) => c.id)).toEqual(expected);
    }
  });

  it("answers 400 for a body search without author, subreddit, link_id or parent_id", async () => {
    for (const query of ["body=compiler", "body=compiler&parent_id="]) {
      const answer = await search(query);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ data: null, error: expect.stringContaining("body") });
    }
  });

  it("finds comments containing every word of a body search", async () => {
    const answer = await search(`subreddit=${sub}&body=${encodeURIComponent("came here")}&limit=20`);
    expect(answer.data.length).toBeGreaterThan(0);
    for (const comment of answer.data) expect(comment.body.toLowerCase()).toMatch(/came.*here|here.*came/s);
  });

  it("excludes words prefixed with a minus in a body search", async () => {
    const answer = await search(`link_id=${thread.id}&body=${encodeURIComponent("the -think")}&limit=100`);
    for (const comment of answer.data) expect(comment.body.toLowerCase()).not.toMatch(/\bthink\b/);
  });

  it("projects the comment fields and rejects post-only fields", async () => {
    const answer = await search(`link_id=${thread.id}&fields=body,link_id,parent_id,score&limit=3`);
    for (const comment of answer.data)
      expect(Object.keys(comment)).toEqual(["body", "link_id", "parent_id", "score"]);
    expect((await search("fields=title")).status).toBe(400);
  });

  it("answers 400 for a malformed link_id or parent_id", async () => {
    expect((await search("link_id=not-an-id!")).status).toBe(400);
    expect((await search("parent_id=t1_!!")).status).toBe(400);
  });

  it("returns an empty list for a link_id that does not exist", async () => {
    expect((await search("link_id=zzzzzzz")).body).toEqual({ data: [] });
  });

  it("serves comments shaped like Reddit's, with negative scores among them", async () => {
    const rows = (await search(`subreddit=${sub}&limit=100`)).data as Record<string, unknown>[];
    for (const comment of rows) {
      expect(comment.name).toBe(`t1_${comment.id}`);
      expect(comment.permalink).toMatch(
        new RegExp(`^/r/${sub}/comments/[0-9a-z]+/[a-z0-9_]+/${comment.id}/$`),
      );
      expect(comment.ups).toBe(comment.score);
      expect(comment.replies).toBe("");
    }
    const scores: number[] = [];
    for (let page = 0, before = ""; page < 10; page++) {
      const batch = (await search(`subreddit=${sub}&limit=100${before}`)).data as {
        score: number;
        created_utc: number;
      }[];
      scores.push(...batch.map((c) => c.score));
      before = `&before=${batch.at(-1)!.created_utc}`;
    }
    expect(scores.some((score) => score < 0)).toBe(true);
  });
});
