/**
 * adapter.tree.get: the spec's node form, `more` stubs kept, and the true thread size readable from
 * the tree (comments + `more` counts), also for a post in the blackout whose num_comments reads 0.
 */

import { requestAdapter } from "@rda/adapter-kit/testing";
import { buildSubjects, type CommentTreeNode } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace } from "@rda/service-kit/testing";
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../upstream-sim/src/index.ts";
import { countThread } from "../src/convert-tree.ts";
import { startAdapterTree } from "../src/index.ts";

let sim: RunningSimulator;
let nats: NatsConnection;
let adapter: { stop(): Promise<void> };
const subjects = buildSubjects(testNamespace("tree"));
const tree = (params: unknown) => requestAdapter(nats, subjects.adapter.getCommentTree, params);

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, scale: 0.05 });
  nats = await connectTestNats();
  adapter = await startAdapterTree({ nats, subjects, upstreamUrl: sim.url, logger: silentLogger() });
});
afterAll(async () => {
  await adapter.stop();
  await nats.close();
  await sim.close();
});

function walkNodes(nodes: readonly CommentTreeNode[], visit: (node: CommentTreeNode) => void): void {
  for (const node of nodes) {
    visit(node);
    walkNodes(node.replies, visit);
  }
}

describe("adapter-tree", () => {
  it("adds up comments and the simulator's subtree-wide more counts to the thread's size in the blackout", async () => {
    const post = sim.probe.freshPost({ minComments: 8 })!;
    expect(post.in_blackout).toBe(true);
    expect(sim.probe.post(post.id)!.num_comments).toBe(0);
    for (const limit of [3, 50, 500]) {
      const answer = await tree({ post_id: `t3_${post.id}`, limit });
      expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
      expect(countThread(answer.data as CommentTreeNode[]), `limit ${limit}`).toBe(post.comment_count);
    }
  });

  it("cuts a large settled thread at limit into more stubs whose counts make up the rest", async () => {
    const post = sim.probe.settledPost({ minComments: 30 })!;
    const answer = await tree({ post_id: post.id, limit: 10 });
    const nodes = answer.data as CommentTreeNode[];
    let comments = 0;
    let stubs = 0;
    walkNodes(nodes, (node) => {
      if (node.kind === "t1") {
        comments += 1;
        expect(node.data).not.toHaveProperty("replies");
        expect(typeof node.data.score).toBe("number");
        expect(node.data.link_id).toBe(`t3_${post.id}`);
      } else {
        stubs += 1;
        expect(node.replies).toEqual([]);
        expect(node.data).toMatchObject({ count: expect.any(Number), children: expect.any(Array) });
      }
    });
    expect(comments).toBe(10);
    expect(stubs).toBeGreaterThan(0);
    expect(countThread(nodes)).toBe(post.comment_count);
  });

  it("nests replies under their parent comment", async () => {
    const post = sim.probe.settledPost({ minComments: 10 })!;
    const nodes = (await tree({ post_id: post.id, limit: 500 })).data as CommentTreeNode[];
    walkNodes(nodes, (node) => {
      for (const reply of node.replies) expect(reply.data.parent_id).toBe(`t1_${node.data.id}`);
    });
    for (const node of nodes) expect(node.data.parent_id).toBe(`t3_${post.id}`);
  });

  it("answers an empty tree for an unknown post", async () => {
    expect(await tree({ post_id: "zzzzzz9" })).toEqual({
      meta: { outcome: "ok", cursor: null, has_more: false },
      data: [],
      fetchedAtMs: expect.any(Number),
      // Fetched from the upstream; an empty thread may still fill, so it is not served again.
      fetch: { maxAgeS: undefined, source: "upstream" },
    });
  });

  it.each([
    [{ post_id: "t3_not valid" }],
    [{ post_id: "abc", limit: 501 }],
    [{ limit: 5 }],
    [{ post_id: 12 }],
  ])("answers bad_request for %j without calling the upstream", async (params) => {
    const before = (await simControl(sim.url).stats()).total;
    expect((await tree(params)).meta.outcome).toBe("bad_request");
    expect((await simControl(sim.url).stats()).total).toBe(before);
  });
});
