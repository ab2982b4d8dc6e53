/**
 * The resource templates (docs/api.md#mcp-endpoint-resources) over real HTTP to the MCP service,
 * a fake gateway behind it that charges as the API does: each read costs what its endpoints cost,
 * a bad URI or argument costs nothing, and both the v2 (2026-07-28) and v1 (2025-11-25) clients read
 * them alike.
 */
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import { connectMcpClient, connectModernClient } from "./support/mcp-client.ts";

const KEY = `rdk_${"r".repeat(43)}`;

let gateway: FakeGateway;
let mcp: McpHandle;
let modern: ModernClient;
let legacy: Client;

beforeAll(async () => {
  gateway = await startFakeGateway({ [KEY]: 100 });
  mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: gateway.url, logger: silentLogger() });
  modern = await connectModernClient(`${mcp.url}/mcp`, KEY);
  legacy = await connectMcpClient(`${mcp.url}/mcp`, KEY);
});
afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  await mcp?.stop();
  await gateway?.close();
});

const balance = () => gateway.balances.get(KEY) ?? 0;
const pathsSince = (from: number) =>
  gateway.seen.slice(from).map((seen) => new URL(seen.url, "http://x").pathname);

async function read(uri: string, client: { readResource: ModernClient["readResource"] } = modern) {
  const before = balance();
  const seenBefore = gateway.seen.length;
  const result = await client.readResource({ uri });
  const [content] = result.contents as { uri: string; mimeType?: string; text: string }[];
  return {
    cost: before - balance(),
    paths: pathsSince(seenBefore),
    content,
    json: JSON.parse(content?.text ?? "null"),
  };
}

describe("resource templates", () => {
  it("lists the five templates to both clients", async () => {
    const expected = [
      "export://{id}",
      "reddit://post/{id}",
      "reddit://r/{name}",
      "reddit://r/{name}/posts{?after,before}",
      "reddit://u/{name}",
    ];
    for (const client of [modern, legacy]) {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual(expected);
    }
  });

  it("reads a community's about and rules for 2 credits, the two endpoints behind it", async () => {
    const { cost, paths, content, json } = await read("reddit://r/typescript");
    expect(cost).toBe(2);
    expect(paths).toEqual(["/v1/subreddits/search", "/v1/subreddits/typescript/rules"]);
    expect(content?.mimeType).toBe("application/json");
    expect(json).toHaveProperty("about");
    expect(json.rules._service.credits_used).toBe(1);
  });

  it("reads a community's posts in a window for 1 credit, passing after and before on", async () => {
    const seenBefore = gateway.seen.length;
    const { cost, json } = await read("reddit://r/typescript/posts?after=1700000000&before=1700086400");
    expect(cost).toBe(1);
    const url = new URL(gateway.seen[seenBefore]?.url ?? "", "http://x");
    expect(url.pathname).toBe("/v1/posts");
    expect(url.searchParams.get("subreddit")).toBe("typescript");
    expect(url.searchParams.get("after")).toBe("1700000000");
    expect(url.searchParams.get("before")).toBe("1700086400");
    expect(Array.isArray(json.posts.data)).toBe(true);
  });

  it("reads a thread and a user for 1 credit each, with the v1 client too", async () => {
    expect((await read("reddit://post/abc123")).cost).toBe(1);
    expect((await read("reddit://u/spez", legacy)).cost).toBe(1);
  });

  it("refuses a URI that matches no template, and charges nothing", async () => {
    const before = balance();
    await expect(modern.readResource({ uri: "reddit://nowhere/x" })).rejects.toThrow(
      /reddit:\/\/r\/\{name\}/,
    );
    expect(balance()).toBe(before);
  });

  it("refuses a bad username with the rule it broke, and charges nothing", async () => {
    const before = balance();
    await expect(modern.readResource({ uri: "reddit://u/not%20a%20name" })).rejects.toThrow(
      /Nothing was charged/,
    );
    expect(balance()).toBe(before);
  });
});
