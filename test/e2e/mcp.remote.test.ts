/**
 * mcp-remote, the stdio bridge that local-only MCP clients use to reach a remote server, in front of
 * the gateway's /mcp: an MCP client speaks to it over stdio, as Claude Desktop would, and it speaks
 * Streamable HTTP to us with the API key as a header. Pinned as a devDependency of this service, run
 * from node_modules/.bin, so CI needs no network at test time.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RESULT_BUDGET_BYTES } from "../../services/mcp/src/index.ts";
import {
  type CallTool,
  type Corpus,
  expectBigTreeInPieces,
  expectDefaultCallsWithin,
  pickCorpus,
  statedBudget,
} from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";

const MCP_REMOTE = join(
  import.meta.dirname,
  "..",
  "..",
  "services",
  "mcp",
  "node_modules",
  ".bin",
  "mcp-remote",
);

let stack: Stack;
let apiKey: string;
let http: GatewayClient;
let corpus: Corpus;
let configDir: string;

beforeAll(async () => {
  stack = await startStack({ portal: true });
  apiKey = (await stack.createKey({ credits: 100 })).key;
  http = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey });
  corpus = pickCorpus(stack);
  // mcp-remote keeps OAuth state under its config dir; a fresh one keeps runs apart.
  configDir = await mkdtemp(join(tmpdir(), "mcp-remote-"));
});
afterAll(async () => {
  await http?.close();
  await stack?.stop();
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

interface Bridged {
  client: Client;
  close(): Promise<void>;
}

function bridge(key: string): { transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: MCP_REMOTE,
    args: [
      `${stack.gatewayUrl}/mcp`,
      "--allow-http",
      "--transport",
      "http-only",
      "--header",
      `x-api-key:${key}`,
    ],
    env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir },
    // Its log goes to stderr, which a stdio client shows the person; the test keeps it quiet.
    stderr: "ignore",
  });
  return { transport };
}

async function connectThroughBridge(key: string): Promise<Bridged> {
  const { transport } = bridge(key);
  const client = new Client({ name: "stdio-agent", version: "1.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

describe("an agent behind mcp-remote", { timeout: 120_000 }, () => {
  let agent: Bridged;
  let call: CallTool;

  beforeAll(async () => {
    agent = await connectThroughBridge(apiKey);
    call = async (name, args) =>
      (await agent.client.callTool({ name, arguments: args })) as Awaited<ReturnType<CallTool>>;
  });
  afterAll(async () => agent?.close());

  it("lists the fifteen tools (nine data tools, three export tools, three monitor tools), each stating the budget", async () => {
    const { tools } = await agent.client.listTools();
    expect(tools).toHaveLength(15);
    expect(statedBudget(tools)).toBe(DEFAULT_RESULT_BUDGET_BYTES);
  });

  it("gets every tool's default result within the budget", async () => {
    await expectDefaultCallsWithin(call, corpus, DEFAULT_RESULT_BUDGET_BYTES);
  });

  it("reads a 500-comment tree in pieces by following next, every comment once", async () => {
    await expectBigTreeInPieces(call, http, corpus.bigPostId, DEFAULT_RESULT_BUDGET_BYTES);
  });
});

describe("mcp-remote with a bad key", { timeout: 60_000 }, () => {
  // mcp-remote answers any 401 by starting OAuth sign-in. It now finds the metadata through the
  // 401's challenge, registers at the portal and sends the person there to sign in and pick a key
  // instead of the refused one; with --debug it shows the refusal's words (services/mcp/README.md).
  it("says the key was refused, finds the OAuth metadata, registers, and offers sign-in in the portal", async () => {
    const child = spawn(
      MCP_REMOTE,
      [
        `${stack.gatewayUrl}/mcp`,
        "--allow-http",
        "--transport",
        "http-only",
        "--debug",
        "--header",
        `x-api-key:rdk_${"z".repeat(43)}`,
      ],
      {
        env: {
          ...(process.env as Record<string, string>),
          MCP_REMOTE_CONFIG_DIR: configDir,
          BROWSER: "true",
        },
      },
    );
    let said = "";
    child.stderr.on("data", (chunk) => {
      said += String(chunk);
    });
    try {
      await waitFor(
        () => said.includes("Please authorize this client by visiting"),
        "mcp-remote to ask for sign-in",
        30_000,
      );
      expect(said).toContain('error_description="unknown or revoked API key');
      // Registration worked: the sign-in link carries the client id the portal just issued. The
      // old failure was a 405 "this API is read-only" on registration; matching "405" alone would
      // also hit log timestamps such as 12:48:27.405Z.
      const signIn = said.match(/\S*\/oauth\/authorize\?\S*/)?.[0] ?? "";
      expect(signIn.startsWith(`${stack.portal!.url}/oauth/authorize?`)).toBe(true);
      expect(new URL(signIn).searchParams.get("client_id")).toMatch(/^[\w-]{16,}$/);
      expect(said).not.toContain("read-only");
    } finally {
      child.kill();
    }
  }, 60_000);
});
