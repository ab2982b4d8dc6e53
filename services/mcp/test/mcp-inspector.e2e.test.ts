/**
 * Issue 7, done when: the MCP Inspector's command-line mode, a client we did not write, lists the
 * tools and calls one through the gateway. It is a pinned root devDependency (TOOLING.md) run from
 * node_modules/.bin, so CI needs no network at test time.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.ts";

const run = promisify(execFile);
const INSPECTOR = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "mcp-inspector");

let stack: Stack;
let apiKey: string;

beforeAll(async () => {
  stack = await startStack();
  apiKey = (await stack.createKey({ credits: 20 })).key;
});
afterAll(async () => stack?.stop());

/** The URL comes before the flags (TOOLING.md); exit code 0 means the call and the tool succeeded. */
async function inspect(...method: string[]): Promise<Record<string, unknown>> {
  const args = [
    "--cli",
    `${stack.gatewayUrl}/mcp`,
    "--transport",
    "http",
    "--header",
    `x-api-key: ${apiKey}`,
  ];
  const { stdout } = await run(INSPECTOR, [...args, ...method], { timeout: 60_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

// The Inspector is a separate Node process per call; on a busy CI machine one run can take seconds.
describe("the MCP Inspector CLI against the gateway's /mcp", { timeout: 60_000 }, () => {
  it("is installed locally, pinned, not fetched at test time", () => {
    expect(existsSync(INSPECTOR)).toBe(true);
  });

  it("lists the seven tools with their input schemas", async () => {
    const { tools } = (await inspect("--method", "tools/list")) as {
      tools: { name: string; inputSchema: object }[];
    };
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "check_credits",
      "get_comment_tree",
      "get_subreddit_rules",
      "get_user_profile",
      "search_comments",
      "search_posts",
      "search_subreddits",
    ]);
    for (const tool of tools) expect(tool.inputSchema).toMatchObject({ type: "object" });
  });

  it("calls check_credits and reads the key's balance, charged nothing", async () => {
    const result = await inspect("--method", "tools/call", "--tool-name", "check_credits");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      data: { credits_balance: 20, rate_limit: expect.any(Object) },
      _service: { credits_used: 0, credits_remaining: 20 },
    });
  });
});
