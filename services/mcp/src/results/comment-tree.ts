/**
 * get_comment_tree results. The HTTP endpoint answers a whole tree, unpaginated; a tool result must
 * fit the budget, so a large tree is read in pieces. The nodes are laid out depth first (the order a
 * person reads a thread); a piece is a run of that order, cut at a whole comment, and the next piece
 * starts after the piece's last comment (`resume_after`). Each piece is a fresh HTTP call, so it is
 * charged like one. In a piece, a node whose parent was in an earlier piece is a root of the piece;
 * its `parent_id` says where it hangs.
 *
 * `more` nodes stand for comments the API collapsed (beyond `limit`); each says how to fetch them.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { type CommentTreeNode, getCommentTreeParamsSchema, MAX_IDS_PER_BATCH } from "@rda/contracts";
import type { z } from "zod";
import { DEFAULT_FIELDS, project, selectedFields } from "./fields.ts";
import {
  assemble,
  count,
  cutSentence,
  fitToBudget,
  type Presentation,
  type Service,
} from "./presentation.ts";

type Args = Record<string, unknown>;

const MAX_TREE_LIMIT = (getCommentTreeParamsSchema.shape.limit.unwrap() as z.ZodNumber).maxValue as number;

interface Entry {
  readonly node: CommentTreeNode;
  /** Index of the parent entry in the depth-first order; -1 for a top-level node. */
  readonly parent: number;
}

interface PresentedNode {
  kind: CommentTreeNode["kind"];
  data: Record<string, unknown>;
  replies: PresentedNode[];
}

export function presentCommentTree(
  tool: string,
  envelope: { data: CommentTreeNode[]; _service: Service },
  args: Args,
  budgetBytes: number,
): CallToolResult {
  const order = depthFirst(envelope.data);
  const resume = typeof args.resume_after === "string" ? args.resume_after : undefined;
  const found = resume === undefined ? -1 : resumePoint(order, resume);
  const start = found + 1;
  const fields = selectedFields(DEFAULT_FIELDS.treeComment, args.fields as string[] | undefined);
  const piece: Piece = {
    order,
    start,
    fields,
    args,
    budgetBytes,
    lostResume: resume !== undefined && found < 0,
  };
  const build = (count: number) =>
    assemble(tool, describe(piece, endOnComment(order, start, count)), envelope._service);
  return fitToBudget(order.length - start, build, budgetBytes);
}

interface Piece {
  readonly order: Entry[];
  readonly start: number;
  readonly fields: string[];
  readonly args: Args;
  readonly budgetBytes: number;
  /** resume_after named a comment that is not in the tree (any more): the piece starts over. */
  readonly lostResume: boolean;
}

function describe(piece: Piece, end: number): Presentation {
  const { order, start, args } = piece;
  const roots = rebuild(piece, end);
  const taken = order.slice(start, end);
  const stubs = taken.filter((entry) => entry.node.kind === "more");
  const collapsed = stubs.reduce((sum, entry) => sum + Number(entry.node.data.count ?? 0), 0);
  const summary = [
    `Comment tree of post ${args.post_id}: ${count(taken.length - stubs.length, "comment")}`,
    stubs.length > 0
      ? ` and ${count(stubs.length, "collapsed stub")} standing for ${count(collapsed, "more comment")}.`
      : ".",
    piece.lostResume
      ? ` Comment ${args.resume_after} is not in the thread any more, so this starts over.`
      : "",
    start > 0 || end < order.length
      ? ` This piece holds nodes ${start + 1} to ${end} of ${order.length}, depth first.`
      : "",
  ].join("");
  const note =
    stubs.length > 0
      ? "Nodes of kind more stand for collapsed comments; each says how to fetch them."
      : undefined;
  if (end === order.length) return { data: roots, summary, note };
  const lastId = String(order[end - 1]?.node.data.id);
  const next = { ...nextArgs(args), resume_after: lastId };
  const cut = cutSentence(piece.budgetBytes, end - start, order.length - start, "remaining nodes");
  const truncated = `${cut} \`next\` continues after comment ${lastId}; each piece costs 1 credit.`;
  return { data: roots, summary, note, next, truncated, service: { has_more: true } };
}

/** Where resume_after points: a comment, or (only if a piece held nothing but stubs) a stub. */
function resumePoint(order: Entry[], id: string): number {
  const comment = order.findIndex((entry) => entry.node.kind === "t1" && entry.node.data.id === id);
  return comment >= 0 ? comment : order.findIndex((entry) => entry.node.data.id === id);
}

/**
 * Where a piece of `count` nodes from `start` ends. A piece that stops short of the tree's end ends
 * after a comment, so the next one can resume after it.
 */
function endOnComment(order: Entry[], start: number, count: number): number {
  let end = start + count;
  if (end >= order.length) return order.length;
  while (end > start + 1 && order[end - 1]?.node.kind !== "t1") end -= 1;
  return end;
}

function depthFirst(nodes: readonly CommentTreeNode[]): Entry[] {
  const order: Entry[] = [];
  const stack: Entry[] = [...nodes].reverse().map((node) => ({ node, parent: -1 }));
  while (stack.length > 0) {
    const entry = stack.pop() as Entry;
    const index = order.push(entry) - 1;
    for (let i = entry.node.replies.length - 1; i >= 0; i -= 1) {
      stack.push({ node: entry.node.replies[i] as CommentTreeNode, parent: index });
    }
  }
  return order;
}

/** The nested form of order[start, end): nodes under their parent when it is in the piece. */
function rebuild(piece: Piece, end: number): PresentedNode[] {
  const { order, start } = piece;
  const roots: PresentedNode[] = [];
  const presented: PresentedNode[] = [];
  for (let index = start; index < end; index += 1) {
    const entry = order[index] as Entry;
    const node: PresentedNode = { kind: entry.node.kind, data: nodeData(entry.node, piece), replies: [] };
    presented[index - start] = node;
    const parent = entry.parent >= start ? presented[entry.parent - start] : undefined;
    (parent ? parent.replies : roots).push(node);
  }
  return roots;
}

function nodeData(node: CommentTreeNode, piece: Piece): Record<string, unknown> {
  if (node.kind === "t1") return project(node.data, piece.fields);
  const count = Number(node.data.count ?? 0);
  return { count, parent_id: node.data.parent_id, fetch: fetchHint(node.data, count, piece.args) };
}

/** How to read what a stub stands for: its direct children by id, the deeper ones by a larger limit. */
function fetchHint(stub: Record<string, unknown>, count: number, args: Args): string {
  const children = Array.isArray(stub.children) ? stub.children.map(String) : [];
  const parts: string[] = [];
  if (children.length > 0) {
    const first = children.slice(0, MAX_IDS_PER_BATCH).join(",");
    const more =
      children.length > MAX_IDS_PER_BATCH ? ` (the first ${MAX_IDS_PER_BATCH} of ${children.length})` : "";
    parts.push(`call search_comments with ids=${first}${more}`);
  }
  const below = count - children.length;
  if (below > 0) {
    parts.push(
      Number(args.limit) < MAX_TREE_LIMIT
        ? `${below} replies below them: call get_comment_tree with a larger limit (at most ${MAX_TREE_LIMIT})`
        : `${below} replies below them are beyond the ${MAX_TREE_LIMIT} comments one call returns`,
    );
  }
  return parts.join("; ");
}

function nextArgs(args: Args): Args {
  const out: Args = { post_id: args.post_id, limit: args.limit };
  if (args.fields !== undefined) out.fields = args.fields;
  return out;
}
