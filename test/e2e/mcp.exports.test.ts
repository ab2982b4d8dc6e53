/**
 * The export tools through the gateway's /mcp, with the exports service running: a free quote, a
 * started export followed to the end and then listed, and a result that carries the file's link,
 * never its rows.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpClient, firstText } from "../../services/mcp/test/support/mcp-client.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, startExportsBeside } from "./exports.support.ts";

let stack: Stack;
let service: ExportsBeside;
let agent: Client;
let keyId: string;
const before = Math.floor(Date.now() / 1000) - 10 * 86_400;

beforeAll(async () => {
  stack = await startStack();
  service = await startExportsBeside(stack);
  const created = await stack.createKey({ credits: 100 });
  keyId = created.id;
  agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, created.key);
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await service?.stop();
  await stack?.stop();
});

type ExportResult = {
  export: { id: string; state: string; progress: { credits_spent: number } };
  file_url?: string;
};

describe("start_export, get_export and list_exports", () => {
  it("quote for free, start, follow to done, and hand back the link, never the data", async () => {
    const args = { kind: "posts", subreddit: "dataisbeautiful", after: before - 7 * 86_400, before };
    const quote = await agent.callTool({ name: "start_export", arguments: args });
    expect(quote.isError).toBeFalsy();
    expect(firstText(quote)).toMatch(/Nothing was charged/);
    expect((quote.structuredContent as ExportResult).export.state).toBe("quoted");
    expect(await stack.balanceOf(keyId)).toBe(100);

    const started = await agent.callTool({ name: "start_export", arguments: { ...args, confirm: true } });
    const { id } = (started.structuredContent as ExportResult).export;
    const done = (await waitFor(async () => {
      const result = await agent.callTool({ name: "get_export", arguments: { id } });
      const content = result.structuredContent as ExportResult;
      return content.export.state === "done" ? content : undefined;
    }, "the export to finish")) as ExportResult;
    expect(done.file_url).toBe(`/v1/exports/${id}/file`);
    expect(JSON.stringify(done)).not.toMatch(/"title"/);
    expect(await stack.balanceOf(keyId)).toBe(100 - done.export.progress.credits_spent);

    // Listed, newest first, with the quote started later than the first export: free, no rows.
    const listed = await agent.callTool({ name: "list_exports", arguments: {} });
    expect(listed.isError).toBeFalsy();
    const { exports } = listed.structuredContent as { exports: ExportResult["export"][] };
    expect(exports.map((each) => each.id)).toContain(id);
    expect(exports.find((each) => each.id === id)?.state).toBe("done");
    expect(firstText(listed)).toMatch(new RegExp(`${id}: done, 100% of the window`));
    expect(JSON.stringify(listed)).not.toMatch(/"title"/);
    expect(await stack.balanceOf(keyId)).toBe(100 - done.export.progress.credits_spent);
  }, 60_000);

  it("refuses a bad argument before any call, and another key's export as unknown", async () => {
    const bad = await agent.callTool({
      name: "start_export",
      arguments: { kind: "threads", after: 1, before: 2 },
    });
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toMatch(/Invalid arguments.*kind/);
    const other = await stack.createKey({ credits: 10 });
    const stranger = await connectMcpClient(`${stack.gatewayUrl}/mcp`, other.key);
    const mine = await agent.callTool({
      name: "start_export",
      arguments: { kind: "posts", subreddit: "dataisbeautiful", after: before - 86_400, before },
    });
    const { id } = (mine.structuredContent as ExportResult).export;
    const seen = await stranger.callTool({ name: "get_export", arguments: { id } });
    await stranger.close();
    expect(seen.isError).toBe(true);
    expect(firstText(seen)).toMatch(/^Not found \(resource_not_found\): no such export/);
    expect(firstText(seen)).not.toMatch(/unexpectedly/);
  }, 60_000);
});
