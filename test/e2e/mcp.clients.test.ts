/**
 * Three real clients walk the whole MCP surface through the gateway's /mcp, on one stack with the
 * exports and monitors services: the v2 client (`@modelcontextprotocol/client`) on 2026-07-28 over
 * Streamable HTTP, declaring the Apps extension so it finds and reads the views too; the v1 client
 * (`@modelcontextprotocol/sdk`) on 2025-11-25; and the MCP Inspector's command-line mode. Each, on a
 * key of its own, lists the tools, templates, resources and prompts, calls every tool, reads every
 * resource and gets every prompt (mcp-walk.support.ts): its balance moves by exactly the prices the
 * server declares, and the ledger verifies afterwards. The SDKs' clients are checked step by step;
 * the Inspector, one process per call, runs each phase's independent calls at once and is checked
 * phase by phase.
 *
 * The Inspector, a client we did not write, also finds the tool schemas portable by its own check
 * (its listing is run with --strict) and reports a bad key in the API's words. The 500-comment tree
 * read in pieces by following `next` is mcp.results.test.ts's (the SDK's client) and
 * mcp.remote.test.ts's (mcp-remote). The Inspector is a pinned root devDependency run from
 * node_modules/.bin, so CI needs no network at test time.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpClient } from "../../services/mcp/test/support/mcp-client.ts";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type Corpus, pickCorpus, type ToolResult } from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, startExportsBeside, verifyLedger } from "./exports.support.ts";
import { type McpSurface, walkEverything } from "./mcp-walk.support.ts";

const run = promisify(execFile);
const INSPECTOR = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "mcp-inspector");
const APPS = "io.modelcontextprotocol/ui";
const APP_MIME = "text/html;profile=mcp-app";
/**
 * Inspector processes at once: each spends most of its second starting Node and loading its bundle,
 * so a few at a time use both cores of a CI machine without crowding the stack they call.
 */
const INSPECTOR_CONCURRENCY = 4;

let stack: Stack;
let exportsService: ExportsBeside;
let monitors: RunningMonitors;
let corpus: Corpus;
let endpoint: string;

beforeAll(async () => {
  stack = await startStack();
  exportsService = await startExportsBeside(stack);
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: { tickMs: 100 },
  });
  corpus = pickCorpus(stack);
  endpoint = `${stack.gatewayUrl}/mcp`;
}, 120_000);
afterAll(async () => {
  await monitors?.stop();
  await exportsService?.stop();
  await stack?.stop();
});

type Connected = McpSurface & { close(): Promise<void> };

/**
 * A key for one client's walk, and the walk run to the end: the key paid something, exactly what
 * was declared (checked after each step, or with `concurrency` after each phase), and the ledger
 * verifies.
 */
async function walkWith(
  connect: (key: string) => Promise<Connected>,
  { declaresApps = false, concurrency = 1 } = {},
) {
  const { key, id: keyId } = await stack.createKey({ credits: 1_000 });
  const client = await connect(key);
  try {
    const spent = await walkEverything(client, { stack, corpus, key, keyId, declaresApps, concurrency });
    expect(spent).toBeGreaterThan(0);
  } finally {
    await client.close();
  }
  expect(await verifyLedger(stack)).toMatchObject({ ok: true });
}

interface SdkLikeClient {
  listTools(): Promise<{ tools: { name: string; description?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<unknown>;
  close(): Promise<void>;
}

/** The SDKs' clients, v1 and v2, share these method names. */
function surfaceOf(client: SdkLikeClient): Connected {
  return {
    listTools: async () => (await client.listTools()).tools,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    listResources: async () => (await client.listResources()).resources,
    listPrompts: async () => (await client.listPrompts()).prompts,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    readResource: async (uri) =>
      (await client.readResource({ uri })) as { contents: { uri: string; text?: string }[] },
    getPrompt: async (name, args) =>
      (await client.getPrompt({ name, arguments: args })) as { messages: unknown[] },
    close: () => client.close(),
  };
}

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
    endpoint,
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

/** The Inspector's answer to one method, parsed; a run that printed nothing is the test's failure. */
async function inspected<T>(key: string, ...method: string[]): Promise<T> {
  const outcome = await inspect(key, ...method);
  if (outcome.stdout.trim() === "")
    throw new Error(`the Inspector answered ${method.join(" ")} with nothing: ${outcome.stderr}`);
  return JSON.parse(outcome.stdout) as T;
}

/**
 * Each method of the walk as one Inspector run. The tool listing is also the Inspector's own check
 * that every schema is portable: --strict writes each finding, errors and warnings alike, to stderr
 * (and exits 6 on an error); there is none.
 */
function inspectorSurface(key: string): Connected {
  return {
    listTools: async () => {
      const outcome = await inspect(key, "--method", "tools/list", "--strict");
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(outcome.stderr).toBe("");
      const { tools } = JSON.parse(outcome.stdout) as {
        tools: { name: string; description?: string; inputSchema: object }[];
      };
      for (const tool of tools) expect(tool.inputSchema, tool.name).toMatchObject({ type: "object" });
      return tools;
    },
    listResourceTemplates: async () =>
      (
        await inspected<{ resourceTemplates: { uriTemplate: string }[] }>(
          key,
          "--method",
          "resources/templates/list",
        )
      ).resourceTemplates,
    listResources: async () =>
      (await inspected<{ resources: { uri: string }[] }>(key, "--method", "resources/list")).resources,
    listPrompts: async () =>
      (await inspected<{ prompts: { name: string }[] }>(key, "--method", "prompts/list")).prompts,
    callTool: (name, args) =>
      inspected(key, "--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(args)),
    readResource: (uri) => inspected(key, "--method", "resources/read", "--uri", uri),
    getPrompt: (name, args) =>
      inspected(
        key,
        "--method",
        "prompts/get",
        "--prompt-name",
        name,
        "--prompt-args",
        ...Object.entries(args).map(([argument, value]) => `${argument}=${value}`),
      ),
    close: async () => {},
  };
}

// Each walk waits for an export and a monitor's backfill; the Inspector's is some 30 Node processes,
// one per call, which take 1 to 3 s each on a busy machine, a few at a time. The walks run one after
// another: run beside the Inspector's processes on a machine loaded past 15, the SDKs' walks got
// honest 503s from a stack too starved to answer within its own deadlines.
describe("every client walks the whole surface, paying exactly the declared prices", {
  timeout: 240_000,
}, () => {
  it("the v2 client on 2026-07-28, declaring the Apps extension, which also reads the views", async () => {
    await walkWith(
      async (key) => {
        const client = new ModernClient(
          { name: "rda-walk-v2", version: "1.0.0" },
          {
            versionNegotiation: { mode: { pin: "2026-07-28" } },
            capabilities: { extensions: { [APPS]: { mimeTypes: [APP_MIME] } } },
          },
        );
        await client.connect(
          new ModernTransport(new URL(endpoint), { requestInit: { headers: { "x-api-key": key } } }),
        );
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        return surfaceOf(client);
      },
      { declaresApps: true },
    );
  });

  it("the v1 client on 2025-11-25", async () => {
    await walkWith(async (key) => {
      const client = await connectMcpClient(endpoint, key);
      expect((client.transport as { protocolVersion?: string }).protocolVersion).toBe("2025-11-25");
      return surfaceOf(client);
    });
  });

  it("the Inspector's CLI, which finds every tool's schemas portable by its own check", async () => {
    await walkWith(async (key) => inspectorSurface(key), { concurrency: INSPECTOR_CONCURRENCY });
  });
});

describe("the MCP Inspector CLI against the gateway's /mcp", () => {
  it("is installed locally, pinned, not fetched at test time", () => {
    expect(existsSync(INSPECTOR)).toBe(true);
  });

  it("reports a bad key in the API's words and lists nothing", async () => {
    const outcome = await inspect(`rdk_${"z".repeat(43)}`, "--method", "tools/list");
    expect(outcome.code).not.toBe(0);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toContain("unknown or revoked API key");
  });
});
