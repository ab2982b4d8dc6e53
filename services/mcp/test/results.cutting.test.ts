/**
 * How results are cut for the budget, on made-up pages and trees where the hard cases are certain:
 * rows sharing a second at the cut, a page all in one second, a batch, a single row larger than the
 * budget, a tree resumed after a comment that is gone, and the texts of collapsed stubs.
 */
import type { CommentTreeNode } from "@rda/contracts";
import { describe, expect, it } from "vitest";
import { presentCommentTree } from "../src/results/comment-tree.ts";
import { presentListing } from "../src/results/listing.ts";
import { bytesOf } from "../src/results/presentation.ts";

type Row = Record<string, unknown>;
type Content = {
  data: Row[];
  _service: Row;
  next?: Row;
  truncated?: string;
};

const SERVICE = { cursor: 90, has_more: true, credits_used: 1, credits_remaining: 9 };

function post(id: string, created: number, size = 400): Row {
  return { id, title: "t".repeat(size), author: "a", subreddit: "abc", created_utc: created, score: 1 };
}

function listing(rows: Row[], args: Row, budget: number) {
  const result = presentListing("post", "search_posts", { data: rows, _service: SERVICE }, args, budget);
  return { result, content: result.structuredContent as Content };
}

/** A budget that fits the first `count` rows and the sentence saying the rest was cut, not one more. */
function budgetFor(rows: Row[], args: Row, count: number): number {
  return bytesOf(listing(rows.slice(0, count), args, Number.MAX_SAFE_INTEGER).result) + 150;
}

describe("cutting a listing", () => {
  const args = { subreddit: "abc", limit: 10, sort: "desc" };

  it("cuts between two seconds and pages on from the last row shown, so no row is lost", () => {
    const rows = [post("a", 100), post("b", 99), post("c", 98), post("d", 98), post("e", 97), post("f", 96)];
    const budget = budgetFor(rows, args, 3);
    const { result, content } = listing(rows, args, budget);
    // Three would fit, but c and d share a second: the cut moves back before it.
    expect(content.data.map((row) => row.id)).toEqual(["a", "b"]);
    expect(content.next).toEqual({ subreddit: "abc", limit: 10, sort: "desc", before: "99" });
    expect(content._service).toMatchObject({ cursor: 99, has_more: true });
    expect(content.truncated).toMatch(/^Cut to stay within \d+ bytes: 2 of 6 posts shown\.$/);
    expect(bytesOf(result)).toBeLessThanOrEqual(budget);
  });

  it("moves after, not before, when the listing is oldest first", () => {
    const rows = [post("a", 1), post("b", 2), post("c", 3), post("d", 4), post("e", 5)];
    const asc = { ...args, sort: "asc", after: 0 };
    const { content } = listing(rows, asc, budgetFor(rows, asc, 2));
    expect(content.next).toEqual({ subreddit: "abc", limit: 10, sort: "asc", after: "2" });
  });

  it("fetches the rest by id when every row shown shares the second of the first left out", () => {
    const rows = ["a", "b", "c", "d", "e"].map((id) => post(id, 100));
    // Room for the longer sentence this case needs.
    const { content } = listing(rows, args, budgetFor(rows, args, 2) + 250);
    expect(content.data.map((row) => row.id)).toEqual(["a", "b"]);
    expect(content.next).toEqual({ ids: "c,d,e" });
    expect(content.truncated).toMatch(
      /shares one created_utc second.*continue the listing with before=90\.$/,
    );
  });

  it("fetches the rest of a batch by id, with the same fields", () => {
    const rows = ["a", "b", "c", "d"].map((id, i) => post(id, 100 - i));
    const batch = { ids: "a,b,c,d", fields: ["url"] };
    const { content } = listing(rows, batch, budgetFor(rows, batch, 2));
    expect(content.next).toEqual({ ids: "c,d", fields: ["url"] });
  });

  it("gives the cursor of the API's page when nothing was cut and more follows", () => {
    const { content } = listing([post("a", 100)], args, 40_000);
    expect(content.truncated).toBeUndefined();
    expect(content.next).toEqual({ ...args, before: "90" });
  });

  it("gives no next when the API says nothing follows", () => {
    const result = presentListing(
      "post",
      "search_posts",
      { data: [post("a", 100)], _service: { ...SERVICE, cursor: 100, has_more: false } },
      args,
      40_000,
    );
    expect(result.structuredContent).not.toHaveProperty("next");
  });

  it("never splits a row: one larger than the budget comes alone, and says it was cut", () => {
    const { content } = listing([post("a", 100, 5_000), post("b", 99)], args, 2_000);
    expect(content.data.map((row) => row.id)).toEqual(["a"]);
    expect(content.next).toMatchObject({ before: "100" });
  });
});

function comment(id: string, replies: CommentTreeNode[] = [], body = "x".repeat(300)): CommentTreeNode {
  return {
    kind: "t1",
    data: { id, body, author: "a", parent_id: "t3_p", created_utc: 1, score: 1 },
    replies,
  };
}

function stub(children: string[], count: number): CommentTreeNode {
  return {
    kind: "more",
    data: { id: children[0]!, name: `t1_${children[0]}`, count, children, parent_id: "t1_a", depth: 1 },
    replies: [],
  };
}

/** The tool's whole result (text and structured content) for a tree page of these nodes. */
function presentTree(nodes: CommentTreeNode[], args: Row, budget: number) {
  const envelope = {
    data: nodes,
    _service: { cursor: null, has_more: false, credits_used: 1, credits_remaining: 9 },
  };
  return presentCommentTree("get_comment_tree", envelope, { post_id: "p", limit: 50, ...args }, budget);
}

function tree(nodes: CommentTreeNode[], args: Row, budget: number) {
  return presentTree(nodes, args, budget).structuredContent as {
    data: CommentTreeNode[];
    next?: Row;
    truncated?: string;
    _service: Row;
  };
}

describe("cutting a comment tree", () => {
  const nodes = [
    comment("a", [comment("b", [comment("c")]), stub(["s1", "s2"], 5)]),
    comment("d"),
    comment("e"),
  ];

  it("ends a piece after a comment, never after a stub, and resumes after that comment", () => {
    // a, b, c fit; the stub would fit too, but a piece that ends on it could not be resumed after.
    const first = tree(nodes, {}, 2_600);
    expect(first.next).toEqual({ post_id: "p", limit: 50, resume_after: "c" });
    const second = tree(nodes, { resume_after: "c" }, 40_000);
    expect(second.data.map((node) => node.kind)).toEqual(["more", "t1", "t1"]);
    expect(second.next).toBeUndefined();
  });

  it("keeps nesting within a piece, and a piece's roots say where they hang", () => {
    const second = tree(nodes, { resume_after: "a" }, 40_000);
    expect(second.data[0]).toMatchObject({ kind: "t1", data: { id: "b" }, replies: [{ data: { id: "c" } }] });
  });

  it("starts over, and says so, when resume_after names a comment the thread no longer has", () => {
    const result = presentTree(nodes, { resume_after: "zz" }, 40_000);
    expect(JSON.stringify(result.content)).toContain(
      "Comment zz is not in the thread any more, so this starts over.",
    );
    expect((result.structuredContent as { data: CommentTreeNode[] }).data[0]?.data.id).toBe("a");
  });

  it("tells how to fetch what a stub stands for: its children by id, their replies by a larger limit", () => {
    const whole = tree(nodes, {}, 40_000);
    const shown = whole.data[0]?.replies[1];
    expect(shown).toEqual({
      kind: "more",
      data: {
        count: 5,
        parent_id: "t1_a",
        fetch:
          "call search_comments with ids=s1,s2; 3 replies below them: call get_comment_tree with a larger limit (at most 500)",
      },
      replies: [],
    });
  });

  it("says replies below a stub are out of reach when the limit is already the largest", () => {
    const whole = tree([stub(["s1"], 4)], { limit: 500 }, 40_000);
    expect(whole.data[0]?.data.fetch).toBe(
      "call search_comments with ids=s1; 3 replies below them are beyond the 500 comments one call returns",
    );
  });

  it("lists at most 100 children of a stub to fetch by id", () => {
    const children = Array.from({ length: 150 }, (_unused, i) => `k${i}`);
    const fetch = String(tree([stub(children, 150)], {}, 40_000).data[0]?.data.fetch);
    expect(fetch).toMatch(/ids=k0,k1,.*,k99 \(the first 100 of 150\)$/);
  });
});
