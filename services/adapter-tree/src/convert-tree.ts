/**
 * The upstream's nested Listing form → the spec's node form (docs/upstream.md#comment-tree):
 *   upstream  {kind:"t1", data:{...comment, replies: {kind:"Listing", data:{children:[...]}} | ""}}
 *   ours      {kind:"t1", data:{...comment without replies}, replies:[...]}
 * Collapsed `more` stubs are kept as {kind:"more", data:{count, children, id, …}, replies:[]}, so a
 * client sees where comments were left out; `count` is the upstream's, passed on as sent (whether it
 * covers whole subtrees is not documented upstream: docs/upstream.md#assumptions).
 *
 * The upstream objects are never mutated: a coalesced upstream answer may be shared by several requests.
 */
import { withIntegerEpochs } from "@rda/adapter-kit";
import type { CommentTreeNode, MoreStub } from "@rda/contracts";

type Thing = { readonly kind: unknown; readonly data: Record<string, unknown> };

/** Returns undefined when the upstream data is not a list of things. */
export function convertTree(data: unknown): CommentTreeNode[] | undefined {
  if (!Array.isArray(data) || !data.every(isThing)) return undefined;
  return convertThings(data);
}

function convertThings(things: readonly Thing[]): CommentTreeNode[] {
  const nodes: CommentTreeNode[] = [];
  for (const thing of things) {
    const node = convertThing(thing);
    if (node) nodes.push(node);
  }
  return nodes;
}

function convertThing(thing: Thing): CommentTreeNode | undefined {
  // Upstream objects pass through as sent (docs/upstream.md#comment-tree): the stub is not re-validated.
  if (thing.kind === "more") return { kind: "more", data: thing.data as MoreStub, replies: [] };
  if (thing.kind !== "t1") return undefined;
  const { replies, ...comment } = thing.data;
  // The copy is ours: epochs sent as strings (old threads) become integers (docs/upstream.md#assumptions).
  return { kind: "t1", data: withIntegerEpochs(comment), replies: convertThings(listingChildren(replies)) };
}

/** Reddit's convention: a comment without loaded replies has `replies: ""`. */
function listingChildren(replies: unknown): readonly Thing[] {
  if (typeof replies !== "object" || replies === null) return [];
  const children = (replies as { data?: { children?: unknown } }).data?.children;
  return Array.isArray(children) ? children.filter(isThing) : [];
}

function isThing(value: unknown): value is Thing {
  if (typeof value !== "object" || value === null) return false;
  const data = (value as { data?: unknown }).data;
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

/** Comments in the tree plus the comments its `more` stubs stand for. */
export function countThread(nodes: readonly CommentTreeNode[]): number {
  let total = 0;
  for (const node of nodes) {
    total += node.kind === "t1" ? 1 + countThread(node.replies) : Number(node.data.count ?? 0);
  }
  return total;
}
