/**
 * Issue 7, done when: the SDK's own client, through the gateway's /mcp over real HTTP, lists the
 * tools, calls each one, gets what the HTTP API answers for the same parameters, and the balance
 * moves by exactly one credit per paid call and none for check_credits or a rejected call.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { OPERATIONS, type OperationName } from "@rda/contracts";
import { createGatewayClient, type GatewayClient } from "@rda/gateway-client";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.ts";
import { connectMcpClient, firstText } from "./support/mcp-client.ts";

let stack: Stack;
let http: GatewayClient;
let agent: Client;
let apiKey: string;
let subreddit: string;
let post: { id: string; author: string };
let comment: { id: string };

async function balance(key = apiKey): Promise<number> {
  const account = await http.getAccount({ apiKey: key });
  if (!account.ok) throw new Error(`account: ${account.error.message}`);
  return account.value.data.credits_balance;
}

async function firstRow<T>(result: Promise<{ ok: boolean; value?: { data: unknown } }>): Promise<T> {
  const answered = await result;
  const row = (answered.value?.data as T[] | undefined)?.[0];
  if (!row) throw new Error("the stack returned no row to test with");
  return row;
}

beforeAll(async () => {
  stack = await startStack();
  apiKey = (await stack.createKey({ credits: 1_000 })).key;
  http = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey });
  subreddit = (await firstRow<{ name: string }>(http.searchSubreddits({ q: "a" }))).name;
  post = await firstRow(http.listPosts({ subreddit, limit: 5 }));
  comment = await firstRow(http.listComments({ subreddit, limit: 5 }));
  agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, apiKey);
});
afterAll(async () => {
  await agent?.close();
  await http?.close();
  await stack?.stop();
});

/** One call of every tool, with the HTTP operation it must match. */
const CALLS: { tool: string; operation: OperationName; args: () => Record<string, unknown> }[] = [
  { tool: "search_posts", operation: "listPosts", args: () => ({ subreddit, limit: 3 }) },
  { tool: "search_posts", operation: "listPosts", args: () => ({ ids: `t3_${post.id}` }) },
  { tool: "search_comments", operation: "listComments", args: () => ({ subreddit, limit: 3, sort: "asc" }) },
  { tool: "search_comments", operation: "listComments", args: () => ({ ids: comment.id }) },
  { tool: "get_comment_tree", operation: "getCommentTree", args: () => ({ post_id: post.id, limit: 20 }) },
  { tool: "search_subreddits", operation: "searchSubreddits", args: () => ({ q: subreddit.slice(0, 2) }) },
  { tool: "get_subreddit_rules", operation: "getSubredditRules", args: () => ({ name: subreddit }) },
  { tool: "get_user_profile", operation: "getUserProfile", args: () => ({ name: post.author }) },
  { tool: "check_credits", operation: "getAccount", args: () => ({}) },
];

describe("the seven tools through the gateway's /mcp", () => {
  it("lists seven tools, each with an input schema, an output schema and read-only annotations", async () => {
    const { tools } = await agent.listTools();
    expect(tools).toHaveLength(7);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.properties).toHaveProperty("_service");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it.each(CALLS)("$tool answers what $operation answers over HTTP, for its price exactly", async (call) => {
    const args = call.args();
    const before = await balance();
    const result = await agent.callTool({ name: call.tool, arguments: args });
    const after = await balance();
    expect(result.isError).toBeFalsy();
    const price = OPERATIONS[call.operation].credits;
    expect(before - after).toBe(price);
    const envelope = result.structuredContent as { data: unknown; _service: Record<string, unknown> };
    expect(JSON.parse(firstText(result))).toEqual(envelope);
    expect(envelope._service).toMatchObject({ credits_used: price, credits_remaining: after });

    const overHttp = await http.call(call.operation, args);
    if (!overHttp.ok) throw new Error(overHttp.error.message);
    // The account's balance is the one thing that legitimately differs: the HTTP call paid too.
    if (call.operation === "getAccount") expect(envelope.data).toMatchObject({ credits_balance: after });
    else expect(envelope.data).toEqual(overHttp.value.data);
    const { credits_remaining: _mcpRemaining, ...mcpMeta } = envelope._service;
    const { credits_remaining: _httpRemaining, ...httpMeta } = overHttp.value._service;
    expect(mcpMeta).toEqual(httpMeta);
  });

  it("charges nothing for a call whose arguments break the schema", async () => {
    const before = await balance();
    const result = await agent.callTool({ name: "search_posts", arguments: { subreddit, limit: 101 } });
    expect(result.isError).toBe(true);
    expect(await balance()).toBe(before);
  });

  it("charges nothing, and says why, when the contract's cross-field rule rejects the arguments", async () => {
    const before = await balance();
    const result = await agent.callTool({
      name: "search_posts",
      arguments: { subreddit, after: "2030-01-01", before: "2029-01-01" },
    });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain("must be earlier than before");
    expect(await balance()).toBe(before);
  });

  it("answers an out-of-credits key with an isError result and leaves its balance at 0", async () => {
    const broke = (await stack.createKey({ credits: 0 })).key;
    const brokeAgent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, broke);
    const result = await brokeAgent.callTool({ name: "get_subreddit_rules", arguments: { name: subreddit } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/Out of credits/);
    const free = await brokeAgent.callTool({ name: "check_credits", arguments: {} });
    expect(free.structuredContent).toMatchObject({ data: { credits_balance: 0 } });
    await brokeAgent.close();
  });

  it("refunds a call the data source fails, and tells the agent so", async () => {
    const before = await balance();
    await stack.fault({ mode: "error", rate: 1 });
    try {
      const result = await agent.callTool({ name: "get_subreddit_rules", arguments: { name: subreddit } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain("refunded");
    } finally {
      await stack.clearFaults();
    }
    await waitFor(async () => (await balance()) === before, "the refund of the failed call");
  });

  it("answers 401 at the gateway, before the MCP layer, when the agent sends no key", async () => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
  });

  it.each(["GET", "DELETE"])("answers 405 to %s /mcp through the gateway", async (method) => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, { method, headers: { "x-api-key": apiKey } });
    expect(response.status).toBe(405);
  });
});
