/**
 * Results that fit an agent's context, seen by the SDK's own client through the gateway: every
 * tool's default result within the budget the tools state, a 500-comment tree read in pieces by
 * following `next` (every comment once, each piece within the budget), a listing cut for the budget
 * continued without losing a row, and a bad key refused with words a person understands.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RESULT_BUDGET_BYTES } from "../../services/mcp/src/index.ts";
import { connectMcpClient } from "../../services/mcp/test/support/mcp-client.ts";
import {
  bytesOf,
  type CallTool,
  type Corpus,
  expectBigTreeInPieces,
  expectDefaultCallsWithin,
  pickCorpus,
  statedBudget,
} from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let http: GatewayClient;
let agent: Client;
let corpus: Corpus;
let budget: number;
let call: CallTool;

beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.createKey({ credits: 1_000 });
  http = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: key });
  agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, key);
  corpus = pickCorpus(stack);
  budget = statedBudget((await agent.listTools()).tools);
  call = async (name, args) =>
    (await agent.callTool({ name, arguments: args })) as Awaited<ReturnType<CallTool>>;
});
afterAll(async () => {
  await agent?.close();
  await http?.close();
  await stack?.stop();
});

describe("results within the budget, through the SDK client", () => {
  it("states one budget, the service's default, in the tool descriptions", () => {
    expect(budget).toBe(DEFAULT_RESULT_BUDGET_BYTES);
  });

  it("answers every tool's default call within the budget", async () => {
    await expectDefaultCallsWithin(call, corpus, budget);
  });

  it("gives the default tree (limit 50) whole, within the budget, with no next piece", async () => {
    const result = await call("get_comment_tree", { post_id: corpus.bigPostId });
    expect(result.structuredContent).not.toHaveProperty("next");
    expect(bytesOf(result)).toBeLessThanOrEqual(budget);
  });

  it("returns a 500-comment tree in pieces an agent walks by following next, every comment once", async () => {
    const walk = await expectBigTreeInPieces(call, http, corpus.bigPostId, budget);
    // A piece's root hangs under the post or under a comment an earlier piece gave.
    for (const { id, parent } of walk.attachedLater) {
      if (parent === `t3_${corpus.bigPostId}`) continue;
      expect(walk.commentIds.indexOf(parent.replace(/^t1_/, ""))).toBeLessThan(walk.commentIds.indexOf(id));
    }
  });

  it("cuts a listing too large for the budget at a whole post and continues it without a gap", async () => {
    const args = {
      subreddit: corpus.subreddit,
      limit: 100,
      fields: ["selftext", "url", "domain", "thumbnail"],
    };
    const first = await call("search_posts", args);
    const content = first.structuredContent as {
      data: { id: string }[];
      truncated?: string;
      next?: Record<string, unknown>;
    };
    expect(bytesOf(first)).toBeLessThanOrEqual(budget);
    expect(content.truncated).toMatch(new RegExp(`^Cut to stay within ${budget} bytes`));
    expect(content.next).toBeDefined();
    const second = await call("search_posts", content.next as Record<string, unknown>);
    const seen = [...content.data, ...(second.structuredContent as { data: { id: string }[] }).data].map(
      (p) => p.id,
    );
    // The same rows, in the same order, as two HTTP pages of the same size would give.
    const whole = await http.listPosts({ subreddit: corpus.subreddit, limit: 100, fields: "id" });
    if (!whole.ok) throw new Error(whole.error.message);
    const expected = whole.value.data.map((post) => String(post.id));
    expect(seen.slice(0, expected.length)).toEqual(expected.slice(0, seen.length));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("refuses a bad key with the API's own words, before any tool is listed", async () => {
    const bad = `rdk_${"z".repeat(43)}`;
    await expect(connectMcpClient(`${stack.gatewayUrl}/mcp`, bad)).rejects.toThrow(
      /unknown or revoked API key/,
    );
  });
});
