/**
 * What the client tests check the same way for every client (the SDK's and mcp-remote): one
 * default call of each tool, the budget the tools state, and a large comment tree read piece by
 * piece by following each result's `next`, as an agent would; and the corpus and result shape the
 * walk of every client (mcp.clients.test.ts) uses too.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CommentTreeNode } from "@rda/contracts";
import type { GatewayClient } from "@rda/sdk";
import { expect } from "vitest";
import { CorpusProbe } from "../../services/upstream-sim/src/index.ts";
import type { Stack } from "./stack.ts";

export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: unknown[];
}

/** Calls a tool the way one client does, returning the result as that client received it. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

/** The byte budget the tools state in their descriptions ("stays within N bytes"), the same in each. */
export function statedBudget(tools: Pick<Tool, "name" | "description">[]): number {
  const stated = tools.map((tool) => Number(/stays within (\d+) bytes/.exec(tool.description ?? "")?.[1]));
  if (new Set(stated).size !== 1 || Number.isNaN(stated[0])) {
    throw new Error(`the tools state budgets ${JSON.stringify(stated)}`);
  }
  return stated[0] as number;
}

export function bytesOf(result: unknown): number {
  return Buffer.byteLength(JSON.stringify(result));
}

export interface Corpus {
  subreddit: string;
  author: string;
  /** A post whose thread has more than 500 comments, so limit=500 is cut by the API too. */
  bigPostId: string;
}

export function pickCorpus(stack: Stack): Corpus {
  const big = new CorpusProbe(stack.simulator.corpus).posts({ minComments: 600 }, 1)[0];
  if (!big) throw new Error("the simulator's corpus has no thread of 600 comments");
  return { subreddit: big.subreddit, author: big.author, bigPostId: big.id };
}

/** Every tool called with only its required arguments: the results an agent gets by default. */
export function defaultCalls(corpus: Corpus): { name: string; args: Record<string, unknown> }[] {
  return [
    { name: "search_posts", args: { subreddit: corpus.subreddit } },
    { name: "search_comments", args: { subreddit: corpus.subreddit } },
    { name: "get_comment_tree", args: { post_id: corpus.bigPostId } },
    { name: "search_subreddits", args: { q: corpus.subreddit.slice(0, 3) } },
    { name: "get_subreddit_rules", args: { name: corpus.subreddit } },
    { name: "get_user_profile", args: { name: corpus.author } },
    { name: "check_credits", args: {} },
  ];
}

export interface TreeWalk {
  /** Bytes of each piece as the client received it. */
  sizes: number[];
  /** Comment ids in the order the pieces gave them. */
  commentIds: string[];
  /** Comments whose parent was not in their own piece, with that parent (t1_… or t3_…). */
  attachedLater: { id: string; parent: string }[];
}

/** Reads get_comment_tree with limit=500 by following `next` until a piece has none. */
export async function walkBigTree(call: CallTool, postId: string, maxPieces = 20): Promise<TreeWalk> {
  const walk: TreeWalk = { sizes: [], commentIds: [], attachedLater: [] };
  let args: Record<string, unknown> | undefined = { post_id: postId, limit: 500 };
  while (args !== undefined) {
    if (walk.sizes.length === maxPieces) throw new Error(`no end after ${maxPieces} pieces`);
    const result = await call("get_comment_tree", args);
    if (result.isError)
      throw new Error(`piece ${walk.sizes.length + 1} failed: ${JSON.stringify(result.content)}`);
    walk.sizes.push(bytesOf(result));
    const content = result.structuredContent as { data: PresentedNode[]; next?: Record<string, unknown> };
    for (const root of content.data) {
      if (root.kind === "t1")
        walk.attachedLater.push({ id: String(root.data.id), parent: String(root.data.parent_id) });
    }
    collectIds(content.data, walk.commentIds);
    args = content.next;
  }
  return walk;
}

interface PresentedNode {
  kind: string;
  data: Record<string, unknown>;
  replies: PresentedNode[];
}

function collectIds(nodes: PresentedNode[], into: string[]): void {
  for (const node of nodes) {
    if (node.kind === "t1") into.push(String(node.data.id));
    collectIds(node.replies, into);
  }
}

/** The comment ids of the whole tree as the HTTP API answers it, depth first. */
export async function httpTreeIds(http: GatewayClient, postId: string): Promise<string[]> {
  const tree = await http.getCommentTree({ post_id: postId, limit: 500 });
  if (!tree.ok) throw new Error(tree.error.message);
  const ids: string[] = [];
  const visit = (nodes: CommentTreeNode[]) => {
    for (const node of nodes) {
      if (node.kind === "t1") ids.push(String(node.data.id));
      visit(node.replies);
    }
  };
  visit(tree.value.data);
  return ids;
}

/** Every tool's default call answers without error, within the budget. */
export async function expectDefaultCallsWithin(
  call: CallTool,
  corpus: Corpus,
  budget: number,
): Promise<void> {
  for (const { name, args } of defaultCalls(corpus)) {
    const result = await call(name, args);
    expect(result.isError, name).toBeFalsy();
    expect(bytesOf(result), name).toBeLessThanOrEqual(budget);
  }
}

/**
 * The 500-comment tree comes in more than one piece, each within the budget, and the pieces hold
 * every comment of the HTTP API's tree once, in its order. Returns the walk for further checks.
 */
export async function expectBigTreeInPieces(
  call: CallTool,
  http: GatewayClient,
  postId: string,
  budget: number,
): Promise<TreeWalk> {
  const walk = await walkBigTree(call, postId);
  expect(walk.sizes.length).toBeGreaterThan(1);
  for (const size of walk.sizes) expect(size).toBeLessThanOrEqual(budget);
  expect(walk.commentIds).toEqual(await httpTreeIds(http, postId));
  return walk;
}
