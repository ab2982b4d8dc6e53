import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostInfo } from "../src/index.ts";
import { startTestSim, type TestSim } from "./support.ts";
import { countTree, shownComments, type Thing } from "./tree-support.ts";

let sim: TestSim;
let big: PostInfo;
let small: PostInfo;
let fresh: PostInfo;

beforeAll(async () => {
  sim = await startTestSim();
  big = sim.probe.settledPost({ minComments: 120 })!;
  small = sim.probe.settledPost({ minComments: 8 })!;
  // Still collecting comments: the tree holds only those created so far.
  fresh = sim.probe.freshPost({ minComments: 5 })!;
});
afterAll(() => sim.close());

const tree = async (query: string): Promise<Thing[]> => {
  const answer = await sim.get(`/api/comments/tree?${query}`);
  expect(answer.status).toBe(200);
  return answer.data;
};

describe("GET /api/comments/tree", () => {
  it("answers 400 without link_id, and for a malformed one", async () => {
    for (const query of [
      "",
      "link_id=",
      "link_id=!!",
      `link_id=${big.id}&limit=0`,
      `link_id=${big.id}&limit=25001`,
    ]) {
      const answer = await sim.get(`/api/comments/tree?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.data).toBeNull();
    }
    expect((await sim.get(`/api/comments/tree?link_id=${big.id}&start_depth=-1`)).status).toBe(400);
  });

  it("returns an empty list for an unknown post", async () => {
    expect(await tree("link_id=zzzzzzz")).toEqual([]);
  });

  it("gives the same tree for link_id with or without t3_, and for an empty or post parent_id", async () => {
    const plain = await tree(`link_id=${small.id}`);
    expect(await tree(`link_id=t3_${small.id}`)).toEqual(plain);
    expect(await tree(`link_id=${small.id}&parent_id=`)).toEqual(plain);
    expect(await tree(`link_id=${small.id}&parent_id=t3_${small.id}`)).toEqual(plain);
  });

  it("returns the whole thread, without stubs, when it fits in limit", async () => {
    const nodes = await tree(`link_id=${big.id}&limit=25000`);
    expect(countTree(nodes)).toMatchObject({ shown: big.comment_count, stubs: 0 });
  });

  it("nests replies as Listings inside data.replies, and leaves leaves with an empty string", async () => {
    const comments = shownComments(await tree(`link_id=${big.id}&limit=25000`));
    for (const comment of comments) {
      expect(comment.replies === "" || comment.replies.kind === "Listing").toBe(true);
      if (comment.replies !== "") {
        for (const child of comment.replies.data.children) {
          expect(child.data.parent_id).toBe(`t1_${comment.id}`);
          expect(child.data.depth).toBe(comment.depth + 1);
        }
      }
    }
    expect(comments.some((comment) => comment.replies === "")).toBe(true);
    expect(comments.some((comment) => comment.depth >= 2)).toBe(true);
  });

  it("agrees with the post's num_comments once the post is past the blackout", async () => {
    const post = (await sim.get(`/api/posts/ids?ids=${big.id}`)).data[0];
    const nodes = await tree(`link_id=${big.id}&limit=25000`);
    expect(countTree(nodes).shown).toBe(post.num_comments);
  });

  it("collapses a thread larger than the default limit of 50 into more stubs", async () => {
    const count = countTree(await tree(`link_id=${big.id}`));
    expect(count.shown).toBeLessThanOrEqual(50);
    expect(count.stubs).toBeGreaterThan(0);
    expect(count.maxDepth).toBeLessThan(4);
  });

  it("shapes more stubs like Reddit's, with the ids of the collapsed comments", async () => {
    const nodes = await tree(`link_id=${big.id}&limit=10`);
    const stub = nodes.find((node) => node.kind === "more")!;
    expect(stub.data).toEqual({
      count: expect.any(Number),
      children: expect.any(Array),
      id: stub.data.children[0],
      name: `t1_${stub.data.children[0]}`,
      parent_id: `t3_${big.id}`,
      depth: 0,
    });
    const collapsed = await sim.get(`/api/comments/ids?ids=${stub.data.children.join(",")}`);
    expect(collapsed.data).toHaveLength(stub.data.children.length);
  });

  // 450 trees over HTTP, some of a thousand comments, one after another: under 2 s alone, but past the
  // default 30 s on a machine busy with the whole suite; every combination is the point, so it waits.
  it("keeps shown comments plus stub counts equal to the thread size for any limit, breadth and depth", async () => {
    const mismatches: string[] = [];
    for (const post of [big, small, fresh]) {
      for (const limit of [1, 2, 7, 50, 120, 1000]) {
        for (const breadth of [0, 1, 3, 4, 50]) {
          for (const depth of [0, 1, 2, 4, 30]) {
            const query = `link_id=${post.id}&limit=${limit}&start_breadth=${breadth}&start_depth=${depth}`;
            const count = countTree(await tree(query));
            if (count.shown + count.collapsed !== post.comment_count || count.shown > limit)
              mismatches.push(query);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("narrows breadth by one per level when collapsing", async () => {
    const nodes = await tree(
      `link_id=${big.id}&limit=${big.comment_count - 1}&start_breadth=3&start_depth=10`,
    );
    const check = (level: readonly Thing[], breadth: number) => {
      expect(level.filter((node) => node.kind === "t1").length).toBeLessThanOrEqual(Math.max(0, breadth));
      for (const node of level)
        if (node.kind === "t1" && node.data.replies !== "")
          check(node.data.replies.data.children, breadth - 1);
    };
    check(nodes, 3);
  });

  it("roots the tree at parent_id, counting that comment and its replies", async () => {
    const all = shownComments(await tree(`link_id=${big.id}&limit=25000`));
    const parent = all.find((comment) => comment.replies !== "" && comment.depth === 0)!;
    const subtree = countTree([{ kind: "t1", data: parent }]).shown;
    for (const form of [parent.id, `t1_${parent.id}`]) {
      const nodes = await tree(`link_id=${big.id}&parent_id=${form}&limit=25000`);
      expect(nodes).toHaveLength(1);
      expect(nodes[0]!.data.id).toBe(parent.id);
      expect(countTree(nodes).shown).toBe(subtree);
      const cut = countTree(await tree(`link_id=${big.id}&parent_id=${form}&limit=1`));
      expect(cut.shown + cut.collapsed).toBe(subtree);
    }
    expect(await tree(`link_id=${small.id}&parent_id=${parent.id}`)).toEqual([]);
  });

  it("adds body_html with md2html=true", async () => {
    const comments = shownComments(await tree(`link_id=${small.id}&md2html=true`));
    for (const comment of comments) expect(comment).toHaveProperty("body_html");
  });
});
