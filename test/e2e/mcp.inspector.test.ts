/**
 * The MCP Inspector's command-line mode, a client we did not write, against the gateway's /mcp: it
 * lists the tools (and finds their schemas portable by its own check), the resource templates and
 * the prompts, gets every tool's default
 * result within the budget, reads a 500-comment tree in pieces by following `next`, and reports a
 * bad key in the API's words. It is a pinned root devDependency run from node_modules/.bin, so CI
 * needs no network at test time.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RESULT_BUDGET_BYTES } from "../../services/mcp/src/index.ts";
import {
  type CallTool,
  type Corpus,
  expectBigTreeInPieces,
  expectDefaultCallsWithin,
  pickCorpus,
} from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";

const run = promisify(execFile);
const INSPECTOR = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "mcp-inspector");

let stack: Stack;
let apiKey: string;
let http: GatewayClient;
let corpus: Corpus;

beforeAll(async () => {
  stack = await startStack();
  apiKey = (await stack.createKey({ credits: 100 })).key;
  http = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey });
  corpus = pickCorpus(stack);
});
afterAll(async () => {
  await http?.close();
  await stack?.stop();
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One Inspector run; the URL comes before the flags. --stored-auth-only: with an API key there is no
 * OAuth to do, and without a terminal the Inspector would otherwise answer any 401 with its own
 * notice that interactive OAuth needs a TTY.
 */
async function inspect(key: string, ...method: string[]): Promise<Outcome> {
  const args = [
    "--cli",
    `${stack.gatewayUrl}/mcp`,
    "--transport",
    "http",
    "--header",
    `x-api-key: ${key}`,
    "--stored-auth-only",
    ...method,
  ];
  try {
    const { stdout, stderr } = await run(INSPECTOR, args, { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const callTool: CallTool = async (name, args) => {
  const outcome = await inspect(
    apiKey,
    "--method",
    "tools/call",
    "--tool-name",
    name,
    "--tool-args-json",
    JSON.stringify(args),
  );
  return JSON.parse(outcome.stdout);
};

// The Inspector is a separate Node process per call; on a busy CI machine one run can take seconds.
describe("the MCP Inspector CLI against the gateway's /mcp", { timeout: 120_000 }, () => {
  it("is installed locally, pinned, not fetched at test time", () => {
    expect(existsSync(INSPECTOR)).toBe(true);
  });

  it("lists the fifteen tools, whose schemas pass the Inspector's own portability check", async () => {
    const outcome = await inspect(apiKey, "--method", "tools/list", "--strict");
    // --strict writes each finding, errors and warnings alike, to stderr; there is none.
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe("");
    const { tools } = JSON.parse(outcome.stdout) as { tools: { name: string; inputSchema: object }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "check_credits",
      "create_monitor",
      "get_activity",
      "get_comment_tree",
      "get_export",
      "get_subreddit_rules",
      "get_user_profile",
      "list_exports",
      "list_monitors",
      "read_monitor_items",
      "search_comments",
      "search_posts",
      "search_subreddits",
      "search_users",
      "start_export",
    ]);
    for (const tool of tools) expect(tool.inputSchema).toMatchObject({ type: "object" });
  });

  it("lists the five resource templates and the four research prompts", async () => {
    const templates = await inspect(apiKey, "--method", "resources/templates/list");
    expect(templates.code).toBe(0);
    const { resourceTemplates } = JSON.parse(templates.stdout) as {
      resourceTemplates: { uriTemplate: string }[];
    };
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("reddit://post/{id}");
    expect(resourceTemplates).toHaveLength(5);
    const prompts = await inspect(apiKey, "--method", "prompts/list");
    expect(prompts.code).toBe(0);
    const listed = JSON.parse(prompts.stdout) as { prompts: { name: string }[] };
    expect(listed.prompts.map((prompt) => prompt.name).sort()).toEqual([
      "community_brief",
      "community_on_topic",
      "summarize_thread",
      "track_topic",
    ]);
  });

  it("calls check_credits and reads the key's balance, charged nothing", async () => {
    const result = await callTool("check_credits", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      data: { credits_balance: expect.any(Number), rate_limit: { qps: 100, burst: 100 } },
      _service: { credits_used: 0 },
    });
  });

  it("gets every tool's default result within the budget", async () => {
    await expectDefaultCallsWithin(callTool, corpus, DEFAULT_RESULT_BUDGET_BYTES);
  });

  it("reads a 500-comment tree in pieces by following next, every comment once", async () => {
    await expectBigTreeInPieces(callTool, http, corpus.bigPostId, DEFAULT_RESULT_BUDGET_BYTES);
  });

  it("reports a bad key in the API's words and lists nothing", async () => {
    const outcome = await inspect(`rdk_${"z".repeat(43)}`, "--method", "tools/list");
    expect(outcome.code).not.toBe(0);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toContain("unknown or revoked API key");
  });
});
