import type { TreePlan, TreeRequest } from "../query/comment-tree.ts";
import type { Slice } from "../query/slices.ts";
import type { Json } from "./context.ts";
import { markdownToHtml } from "./md2html.ts";
import type { Renderer } from "./renderer.ts";

/**
 * Reddit-style nested things (upstream.md §1.5): `t1` nodes whose `data.replies`
 * is a Listing or "", and one `more` stub per cut sibling run. A stub's `count`
 * is the number of comments in the collapsed subtrees, so the shown comments plus
 * all stub counts always add up to the whole thread.
 */
export function renderTree(renderer: Renderer, plan: TreePlan, request: TreeRequest, now: number): Json[] {
  const walk = (siblings: Slice, depth: number, parentFullname: string): Json[] => {
    const nodes: Json[] = [];
    for (let k = siblings.lo; k < siblings.hi; k++) {
      const comment = siblings.items[k] as number;
      if (plan.shown !== null && !plan.shown.has(comment)) {
        nodes.push(moreStub(renderer, plan, { ...siblings, lo: k }, depth, parentFullname));
        break;
      }
      const data = renderer.comment(comment, now);
      const replies = walk(plan.view.children(comment), depth + 1, `t1_${data["id"]}`);
      data["depth"] = depth;
      data["replies"] = replies.length > 0 ? { kind: "Listing", data: { children: replies } } : "";
      if (request.md2html) data["body_html"] = markdownToHtml(String(data["body"]));
      nodes.push({ kind: "t1", data });
    }
    return nodes;
  };
  return walk(plan.roots, 0, rootParent(renderer, plan));
}

function moreStub(renderer: Renderer, plan: TreePlan, rest: Slice, depth: number, parentFullname: string): Json {
  const { comments } = renderer.ctx.corpus;
  const children: string[] = [];
  for (let k = rest.lo; k < rest.hi; k++) children.push((comments.idNum[rest.items[k] as number] as number).toString(36));
  const first = children[0] ?? "_";
  return {
    kind: "more",
    data: { count: plan.view.sliceTotal(rest), children, id: first, name: `t1_${first}`, parent_id: parentFullname, depth },
  };
}

function rootParent(renderer: Renderer, plan: TreePlan): string {
  const { comments, posts } = renderer.ctx.corpus;
  const root = plan.roots.items[plan.roots.lo];
  const parent = root === undefined ? -1 : (comments.parent[root] as number);
  if (parent >= 0) return `t1_${(comments.idNum[parent] as number).toString(36)}`;
  return `t3_${(posts.idNum[plan.post] as number).toString(36)}`;
}
