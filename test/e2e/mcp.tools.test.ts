/**
 * The SDK's own client, through the gateway's /mcp over real HTTP, lists the
 * tools, calls each one, gets what the HTTP API answers for the same parameters, and the balance
 * moves by exactly one credit per paid call and none for check_credits or a rejected call.
 */

import { connect } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { OPERATIONS, type OperationName } from "@rda/contracts";
import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcp } from "../../services/mcp/src/index.ts";
import { connectMcpClient, firstText } from "../../services/mcp/test/support/mcp-client.ts";
import { type Stack, startStack } from "../support/stack.ts";

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

const LEAN_POST = "id,title,author,subreddit,created_utc,score,num_comments,permalink";
const LEAN_COMMENT = "id,body,author,subreddit,created_utc,score,link_id,permalink";

type Json = Record<string, unknown>;

/** A tree reduced to what a lean presentation keeps of its shape: kinds, ids, counts, nesting. */
function shapeOf(nodes: unknown): unknown {
  return (nodes as { kind: string; data: Json; replies: unknown[] }[]).map((node) => ({
    kind: node.kind,
    key: node.kind === "t1" ? node.data.id : node.data.count,
    replies: shapeOf(node.replies),
  }));
}

function keep(item: Json, names: string[]): Json {
  return Object.fromEntries(names.filter((name) => name in item).map((name) => [name, item[name]]));
}

/**
 * One call of every tool, with the HTTP call it must match: the same parameters, asking the HTTP API
 * for the lean fields where it can project them, and what the lean result keeps of the answer.
 */
const CALLS: {
  tool: string;
  operation: OperationName;
  args: () => Json;
  http?: (args: Json) => Json;
  lean?: (data: unknown) => unknown;
}[] = [
  {
    tool: "search_posts",
    operation: "listPosts",
    args: () => ({ subreddit, limit: 3 }),
    http: (args) => ({ ...args, fields: LEAN_POST }),
  },
  {
    tool: "search_posts",
    operation: "listPosts",
    args: () => ({ ids: `t3_${post.id}` }),
    http: (args) => ({ ...args, fields: LEAN_POST }),
  },
  {
    tool: "search_comments",
    operation: "listComments",
    args: () => ({ subreddit, limit: 3, sort: "asc" }),
    http: (args) => ({ ...args, fields: LEAN_COMMENT }),
  },
  {
    tool: "search_comments",
    operation: "listComments",
    args: () => ({ ids: comment.id }),
    http: (args) => ({ ...args, fields: LEAN_COMMENT }),
  },
  {
    tool: "get_comment_tree",
    operation: "getCommentTree",
    args: () => ({ post_id: post.id, limit: 20 }),
    lean: shapeOf,
  },
  { tool: "search_subreddits", operation: "searchSubreddits", args: () => ({ q: subreddit.slice(0, 2) }) },
  {
    tool: "get_subreddit_rules",
    operation: "getSubredditRules",
    args: () => ({ name: subreddit }),
    lean: (data) => {
      const { subreddit: name, rules } = data as { subreddit: string; rules: Json[] };
      return {
        subreddit: name,
        rules: rules.map((rule) => keep(rule, ["short_name", "description", "priority"])),
      };
    },
  },
  {
    tool: "get_user_profile",
    operation: "getUserProfile",
    args: () => ({ name: post.author }),
    lean: (data) => {
      const user = (data as { user: Json & { _meta: Json } }).user;
      const meta = ["num_posts", "num_comments", "post_karma", "comment_karma", "total_karma"];
      return { author: user.author, id: user.id, _meta: keep(user._meta, meta) };
    },
  },
  {
    tool: "search_posts",
    operation: "listPosts",
    args: () => ({ subreddit, limit: 5, over_18: false, spoiler: "no" }),
    http: (args) => ({ ...args, fields: LEAN_POST }),
  },
  {
    tool: "search_comments",
    operation: "listComments",
    args: () => ({ link_id: post.id, parent_id: "", limit: 5 }),
    http: (args) => ({ ...args, fields: LEAN_COMMENT }),
  },
  {
    tool: "search_users",
    operation: "searchUsers",
    args: () => ({ author_prefix: "b", limit: 3 }),
    lean: (data) =>
      (data as (Json & { _meta: Json })[]).map((user) => ({
        author: user.author,
        id: user.id,
        _meta: keep(user._meta, [
          "num_posts",
          "num_comments",
          "post_karma",
          "comment_karma",
          "total_karma",
          "earliest_post_at",
          "earliest_comment_at",
          "last_post_at",
          "last_comment_at",
        ]),
      })),
  },
  {
    tool: "get_activity",
    operation: "getActivity",
    // One absolute window for both calls: a relative one ("5d") would move if the second call came a
    // second later.
    args: () => {
      const now = Math.floor(Date.now() / 1000);
      return { subreddit, interval: "day", after: now - 5 * 86_400, before: now };
    },
    http: (args) => args,
  },
  { tool: "check_credits", operation: "getAccount", args: () => ({}) },
];

describe("the nine data tools through the gateway's /mcp", () => {
  it("lists nine read-only data tools, the three export tools and the three monitor tools, each with an input and an output schema", async () => {
    const { tools } = await agent.listTools();
    expect(tools).toHaveLength(15);
    for (const tool of tools.filter((listed) => !/_exports?$|monitor/.test(listed.name))) {
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
    expect(envelope._service).toMatchObject({ credits_used: price, credits_remaining: after });

    const overHttp = await http.call(call.operation, call.http ? call.http(args) : args);
    if (!overHttp.ok) throw new Error(overHttp.error.message);
    const lean = call.lean ?? ((data: unknown) => data);
    // The account's balance is the one thing that legitimately differs: the HTTP call paid too.
    if (call.operation === "getAccount") expect(envelope.data).toMatchObject({ credits_balance: after });
    else if (call.operation === "getUserProfile") {
      expect((envelope.data as { user: Json }).user).toMatchObject(lean(overHttp.value.data) as Json);
    } else if (call.operation === "getCommentTree")
      expect(shapeOf(envelope.data)).toEqual(lean(overHttp.value.data));
    else expect(envelope.data).toEqual(lean(overHttp.value.data));
    // And when each was fetched: two requests, two fetches.
    const { credits_remaining: _mcpRemaining, cached_at: _mcpFetched, ...mcpMeta } = envelope._service;
    const {
      credits_remaining: _httpRemaining,
      cached_at: _httpFetched,
      ...httpMeta
    } = overHttp.value._service;
    expect(mcpMeta).toEqual(httpMeta);
  });

  it("accepts r/AskReddit as the rules' community name over MCP and over HTTP alike", async () => {
    const overMcp = await agent.callTool({
      name: "get_subreddit_rules",
      arguments: { name: `r/${subreddit}` },
    });
    expect(overMcp.isError).toBeFalsy();
    expect(overMcp.structuredContent).toMatchObject({ data: { subreddit } });
    const response = await fetch(`${stack.gatewayUrl}/v1/subreddits/r%2F${subreddit}/rules`, {
      headers: { "x-api-key": apiKey },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { subreddit: string } }).data.subreddit).toBe(subreddit);
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
    expect(await response.json()).toEqual({ error: expect.any(String), code: "missing_api_key" });
  });

  it("refuses a batch that repeats a request id through the gateway, charging nothing", async () => {
    const before = await balance();
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_subreddit_rules", arguments: { name: subreddit } },
    };
    const response = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": apiKey },
      body: JSON.stringify([call, call, call]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await balance()).toBe(before);
  });

  it("serves Accept: application/json alone through the gateway", async () => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(15);
  });

  it("refuses a web page's request from an origin not configured, through the gateway, with 403", async () => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        origin: "https://evil.example",
        "x-api-key": apiKey,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(403);
  });

  it("passes a configured origin's CORS preflight, which carries no key, through the gateway", async () => {
    const origin = "https://app.example.com";
    const withOrigins = await startMcp({
      port: 0,
      host: "127.0.0.1",
      gatewayUrl: stack.gatewayUrl,
      logger: silentLogger(),
      allowedOrigins: [origin],
    });
    try {
      const gateway = await stack.startGateway({ mcpUrl: withOrigins.url });
      const response = await fetch(`${gateway.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "x-api-key",
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("access-control-allow-headers")).toContain("x-api-key");
    } finally {
      await withOrigins.stop();
    }
  });

  it("lets a configured origin's page read the gateway's own 401 and its OAuth challenge, and no other origin's", async () => {
    const origin = "https://app.example.com";
    const gateway = await stack.startGateway({ mcpAllowedOrigins: [origin] });
    const refusedFrom = (from: string) =>
      fetch(`${gateway.url}/mcp`, {
        method: "POST",
        headers: { origin: from, "content-type": "application/json", "x-api-key": `rdk_${"q".repeat(43)}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const allowed = await refusedFrom(origin);
    expect(allowed.status).toBe(401);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(origin);
    expect(allowed.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    expect(allowed.headers.get("www-authenticate")).toMatch(/^Bearer .*resource_metadata=/);
    expect(allowed.headers.get("vary")).toMatch(/Origin/);
    const other = await refusedFrom("https://elsewhere.example.com");
    expect(other.status).toBe(401);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers 408 at the gateway, and closes the connection, when a body trickles in past its deadline", async () => {
    const deadlineMs = 1_000;
    const gateway = await stack.startGateway({ bodyTimeoutMs: deadlineMs });
    const answer = await trickle(
      gateway.url,
      apiKey,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/^connection: close\r$/im);
    expect(answer).toContain(
      `{"error":"the request did not arrive in time: the body was not received in full within ${deadlineMs} ms","code":"request_timeout"}`,
    );
  });

  it.each(["GET", "DELETE"])("answers 405 to %s /mcp through the gateway", async (method) => {
    const response = await fetch(`${stack.gatewayUrl}/mcp`, { method, headers: { "x-api-key": apiKey } });
    expect(response.status).toBe(405);
  });
});

/** Sends a POST /mcp whose body comes a byte every 100 ms, and returns what the server answered. */
async function trickle(baseUrl: string, key: string, body: string): Promise<string> {
  const socket = connect(Number(new URL(baseUrl).port), "127.0.0.1");
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nx-api-key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  let sent = 0;
  const drip = setInterval(() => {
    if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++] ?? "");
  }, 100);
  try {
    return await new Promise<string>((resolve) => {
      let received = "";
      socket.on("data", (chunk) => {
        received += String(chunk);
      });
      socket.on("close", () => resolve(received));
    });
  } finally {
    clearInterval(drip);
  }
}
