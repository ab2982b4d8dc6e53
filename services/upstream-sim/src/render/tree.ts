import type { TreePlan, TreeRequest } from "../query/comment-tree.ts";
import type { Slice } from "../query/slices.ts";
import type { Renderer } from "./renderer.ts";

/** The key every served comment carries once, as in the dumps; tree nodes replace it. */
const EMPTY_REPLIES = '"replies":""';

/**
 * Reddit-style nested things (docs/upstream.md#response-shapes): `t1` nodes whose `data.replies`
 * is a Listing or "", and one `more` stub per cut sibling run. A stub's `count`
 * is the number of comments in the collapsed subtrees, so the shown comments plus
 * all stub counts always add up to the whole thread.
 *
 * Built as JSON text around each comment's cached JSON: big trees are common in
 * benchmarks and rebuilding hundreds of objects per request would dominate.
 */
export function renderTree(renderer: Renderer, plan: TreePlan, request: TreeRequest, now: number): string {
  const output = { md2html: request.md2html };
  const walk = (siblings: Slice, depth: number, parentFullname: string): string[] => {
    const nodes: string[] = [];
    for (let k = siblings.lo; k < siblings.hi; k++) {
      const comment = siblings.items[k] as number;
      if (plan.shown !== null && !plan.shown.has(comment)) {
        nodes.push(moreStub(renderer, plan, { ...siblings, lo: k }, depth, parentFullname));
        break;
      }
      const id = (renderer.ctx.corpus.comments.idNum[comment] as number).toString(36);
      const replies = walk(plan.view.children(comment), depth + 1, `t1_${id}`);
      const listing =
        replies.length > 0 ? `{"kind":"Listing","data":{"children":[${replies.join(",")}]}}` : '""';
      nodes.push(t1Node(renderer.commentJson(comment, now, output), depth, listing));
    }
    return nodes;
  };
  return `[${walk(plan.roots, 0, rootParent(renderer, plan)).join(",")}]`;
}

function t1Node(commentJson: string, depth: number, replies: string): string {
  const at = commentJson.indexOf(EMPTY_REPLIES);
  const data = `${commentJson.slice(0, at)}"depth":${depth},"replies":${replies}${commentJson.slice(at + EMPTY_REPLIES.length)}`;
  return `{"kind":"t1","data":${data}}`;
}

function moreStub(
  renderer: Renderer,
  plan: TreePlan,
  rest: Slice,
  depth: number,
  parentFullname: string,
): string {
  const { comments } = renderer.ctx.corpus;
  const children: string[] = [];
  for (let k = rest.lo; k < rest.hi; k++)
    children.push((comments.idNum[rest.items[k] as number] as number).toString(36));
  const first = children[0] ?? "_";
  const data = {
    count: plan.view.sliceTotal(rest),
    children,
    id: first,
    name: `t1_${first}`,
    parent_id: parentFullname,
    depth,
  };
  return JSON.stringify({ kind: "more", data });
}

function rootParent(renderer: Renderer, plan: TreePlan): string {
  const { comments, posts } = renderer.ctx.corpus;
  const root = plan.roots.items[plan.roots.lo];
  const parent = root === undefined ? -1 : (comments.parent[root] as number);
  if (parent >= 0) return `t1_${(comments.idNum[parent] as number).toString(36)}`;
  return `t3_${(posts.idNum[plan.post] as number).toString(36)}`;
}
