/**
 * The research prompts (docs/api.md#mcp-endpoint-prompts) over real HTTP to the MCP service, a fake
 * gateway behind it: listed to the v2 and v1 clients alike, free to get, each naming tools that exist
 * and asking for permalinks, and each tool call they spell out accepted as written by the tool.
 */
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import { connectMcpClient, connectModernClient } from "./support/mcp-client.ts";

const KEY = `rdk_${"p".repeat(43)}`;

let gateway: FakeGateway;
let mcp: McpHandle;
let modern: ModernClient;
let legacy: Client;
let toolNames: string[];

beforeAll(async () => {
  gateway = await startFakeGateway({ [KEY]: 100 });
  mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: gateway.url, logger: silentLogger() });
  modern = await connectModernClient(`${mcp.url}/mcp`, KEY);
  legacy = await connectMcpClient(`${mcp.url}/mcp`, KEY);
  toolNames = (await modern.listTools()).tools.map((tool) => tool.name);
});
afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  await mcp?.stop();
  await gateway?.close();
});

const ARGUMENTS: Record<string, Record<string, string>> = {
  summarize_thread: { post_id: "abc123" },
  community_on_topic: { subreddit: "typescript", topic: "type inference", after: "30d" },
  community_brief: { subreddit: "r/typescript" },
  track_topic: { subreddit: "typescript", topic: "bun" },
};

async function promptText(name: string, args: Record<string, string>): Promise<string> {
  const result = await modern.getPrompt({ name, arguments: args });
  const [message] = result.messages;
  expect(message?.role).toBe("user");
  return (message?.content as { text?: string } | undefined)?.text ?? "";
}

/** The calls a prompt spells out: `call <tool> with {…}` (a following `and/or {…}` too). */
function spelledOutCalls(text: string): { name: string; args: Record<string, unknown> }[] {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  for (const match of text.matchAll(/call (\w+)(?: \(free\))? with (\{[^}]*\})(?: and\/or (\{[^}]*\}))?/gi)) {
    const [, name = "", first = "{}", second] = match;
    calls.push({ name, args: JSON.parse(first) });
    if (second) calls.push({ name, args: JSON.parse(second) });
  }
  return calls;
}

describe("research prompts", () => {
  it("lists the same four prompts to the v2 and the v1 client", async () => {
    const names = (prompts: { name: string }[]) => prompts.map((prompt) => prompt.name).sort();
    const expected = ["community_brief", "community_on_topic", "summarize_thread", "track_topic"];
    expect(names((await modern.listPrompts()).prompts)).toEqual(expected);
    expect(names((await legacy.listPrompts()).prompts)).toEqual(expected);
  });

  it.each(Object.entries(ARGUMENTS))(
    "%s names only real tools, asks for permalinks and costs nothing",
    async (name, args) => {
      const before = gateway.balances.get(KEY);
      const text = await promptText(name, args);
      expect(text).toMatch(/permalink/);
      const named = [...text.matchAll(/\b([a-z]+(?:_[a-z]+)+)\b/g)].map((match) => match[1] ?? "");
      const tools = named.filter((word) => toolNames.includes(word));
      expect(tools.length).toBeGreaterThan(0);
      for (const call of spelledOutCalls(text)) expect(toolNames).toContain(call.name);
      expect(gateway.balances.get(KEY)).toBe(before);
    },
  );

  it.each(["summarize_thread", "community_on_topic", "community_brief"])(
    "%s spells out tool calls that the tools accept as written",
    async (name) => {
      const calls = spelledOutCalls(await promptText(name, ARGUMENTS[name] ?? {}));
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        const result = await modern.callTool({ name: call.name, arguments: call.args });
        expect(result.isError, `${call.name} ${JSON.stringify(call.args)}`).toBeFalsy();
      }
    },
  );

  it("track_topic asks the person to confirm before create_monitor, and spells out valid monitors", async () => {
    const text = await promptText("track_topic", ARGUMENTS.track_topic ?? {});
    expect(text).toMatch(/confirm/i);
    expect(text.indexOf("confirm")).toBeLessThan(text.indexOf("call create_monitor"));
    const monitors = spelledOutCalls(text).filter((call) => call.name === "create_monitor");
    expect(monitors.map((call) => call.args)).toEqual([
      { subreddit: "typescript", kind: "post", phrase: "bun" },
      { subreddit: "typescript", kind: "comment", phrase: "bun" },
    ]);
  });

  it("refuses a missing argument and an unknown prompt, naming what is wrong", async () => {
    await expect(modern.getPrompt({ name: "community_brief", arguments: {} })).rejects.toThrow(
      /subreddit is required/,
    );
    await expect(
      modern.getPrompt({ name: "track_topic", arguments: { topic: "x", subreddit: "abc", author: "bob" } }),
    ).rejects.toThrow(/exactly one of subreddit and author/);
    await expect(modern.getPrompt({ name: "nope", arguments: {} })).rejects.toThrow(/summarize_thread/);
  });
});
