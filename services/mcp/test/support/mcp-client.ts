/**
 * The SDKs' own MCP clients over real HTTP, authenticated like an agent would be: the v1 client
 * (protocol 2025-11-25) and the v2 client, which negotiates 2026-07-28.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { silentLogger } from "@rda/service-kit/testing";
import { type FakeGateway, startFakeGateway } from "../../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../../src/index.ts";

export async function connectMcpClient(endpoint: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: "rda-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { "x-api-key": apiKey } },
  });
  await client.connect(transport);
  return client;
}

/**
 * The v2 client. `auto` probes with server/discover and settles on the newest revision both sides
 * speak; a pinned revision fails unless the server offers it.
 */
export async function connectModernClient(
  endpoint: string,
  apiKey: string,
  mode: "auto" | { pin: string } = { pin: "2026-07-28" },
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "rda-test-agent-v2", version: "1.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new ModernTransport(new URL(endpoint), { requestInit: { headers: { "x-api-key": apiKey } } }),
  );
  return client;
}

/** The first text block of a tool result. */
export function firstText(result: unknown): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return blocks.find((block) => block.type === "text")?.text ?? "";
}

export interface AgentOverFakeGateway {
  readonly gateway: FakeGateway;
  readonly mcp: McpHandle;
  readonly agent: Client;
  close(): Promise<void>;
}

/** An MCP service in front of a fake gateway holding `balances`, and an agent connected with `apiKey`. */
export async function startAgentOverFakeGateway(
  balances: Record<string, number>,
  apiKey: string,
): Promise<AgentOverFakeGateway> {
  const gateway = await startFakeGateway(balances);
  const mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: gateway.url, logger: silentLogger() });
  const agent = await connectMcpClient(`${mcp.url}/mcp`, apiKey);
  return {
    gateway,
    mcp,
    agent,
    async close() {
      await agent.close();
      await mcp.stop();
      await gateway.close();
    },
  };
}
