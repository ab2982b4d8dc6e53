/**
 * The MCP resource templates through the gateway's /mcp with the whole stack and the exports service:
 * every read costs, on the ledger, exactly what its endpoints cost (docs/api.md#mcp-endpoint-resources),
 * with the v2 client on 2026-07-28; `export://` is free; a failed read costs nothing; the ledger
 * verifies afterwards.
 */
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectModernClient } from "../../services/mcp/test/support/mcp-client.ts";
import { type Corpus, pickCorpus } from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, startExportsBeside, verifyLedger } from "./exports.support.ts";

let stack: Stack;
let exportsService: ExportsBeside;
let agent: ModernClient;
let keyId: string;
let corpus: Corpus;

beforeAll(async () => {
  stack = await startStack();
  exportsService = await startExportsBeside(stack);
  const created = await stack.createKey({ credits: 100 });
  keyId = created.id;
  corpus = pickCorpus(stack);
  agent = await connectModernClient(`${stack.gatewayUrl}/mcp`, created.key);
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await exportsService?.stop();
  await stack?.stop();
});

/** Reads `uri` and returns the ledger's change and the parsed contents. */
async function read(uri: string) {
  const before = await stack.balanceOf(keyId);
  const result = await agent.readResource({ uri });
  const [content] = result.contents as { text: string }[];
  return { cost: before - (await stack.balanceOf(keyId)), json: JSON.parse(content?.text ?? "null") };
}

describe("resource reads, billed like the endpoints behind them", () => {
  it("charges 2 for a community (about and rules), 1 for its posts, a thread and a user", async () => {
    const community = await read(`reddit://r/${corpus.subreddit}`);
    expect(community.cost).toBe(2);
    expect(community.json.about.community?.name?.toLowerCase()).toBe(corpus.subreddit.toLowerCase());
    expect(Array.isArray(community.json.rules.data.rules)).toBe(true);

    const posts = await read(`reddit://r/${corpus.subreddit}/posts`);
    expect(posts.cost).toBe(1);
    expect(posts.json.posts.data.length).toBeGreaterThan(0);

    const thread = await read(`reddit://post/${corpus.bigPostId}`);
    expect(thread.cost).toBe(1);
    expect(thread.json.thread).toHaveProperty("_service");

    const user = await read(`reddit://u/${corpus.author}`);
    expect(user.cost).toBe(1);
    expect(user.json.profile).toHaveProperty("data");
  });

  it("reads an export for free, and charges nothing for a read that fails", async () => {
    const before = Math.floor(Date.now() / 1000) - 10 * 86_400;
    const quote = await agent.callTool({
      name: "start_export",
      arguments: { kind: "posts", subreddit: corpus.subreddit, after: before - 86_400, before },
    });
    const { id } = (quote.structuredContent as { export: { id: string } }).export;
    const exported = await read(`export://${id}`);
    expect(exported.cost).toBe(0);
    expect(exported.json.export.export).toMatchObject({ id, state: "quoted" });

    const balance = await stack.balanceOf(keyId);
    await expect(agent.readResource({ uri: "reddit://post/!!" })).rejects.toThrow(/Nothing was charged/);
    expect(await stack.balanceOf(keyId)).toBe(balance);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });
});
