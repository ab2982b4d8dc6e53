/**
 * Protocol versions, negotiated per request (docs/api.md#mcp-endpoint): the v2 client on 2026-07-28,
 * whether pinned or negotiating, the v1 client on 2025-11-25, and bare exchanges on 2025-06-18,
 * 2025-03-26, 2024-11-05 and 2024-10-07 all list the same tools and pay for a call exactly once; a
 * revision the server does not speak is negotiated away at initialize and refused in a header. Real HTTP to the MCP service, a fake gateway behind it.
 */
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import { connectMcpClient, connectModernClient, firstText } from "./support/mcp-client.ts";

const KEY = `rdk_${"a".repeat(43)}`;
const PAID_CALL = { name: "search_subreddits", arguments: { q: "cats" } };

let gateway: FakeGateway;
let mcp: McpHandle;
let endpoint: string;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  gateway = await startFakeGateway({ [KEY]: 100 });
  mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: gateway.url, logger: silentLogger() });
  endpoint = `${mcp.url}/mcp`;
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await mcp.stop();
  await gateway.close();
});

async function modern(mode?: "auto" | { pin: string }): Promise<ModernClient> {
  const client = await connectModernClient(endpoint, KEY, mode);
  clients.push(client);
  return client;
}

async function legacy(): Promise<Client> {
  const client = await connectMcpClient(endpoint, KEY);
  clients.push(client);
  return client;
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-api-key": KEY, ...headers },
    body: JSON.stringify(body),
  });
}

/** Runs a paid call and returns what it cost the key. */
async function costOf(call: () => Promise<unknown>): Promise<{ cost: number; result: unknown }> {
  const before = gateway.balances.get(KEY) ?? 0;
  const result = await call();
  return { cost: before - (gateway.balances.get(KEY) ?? 0), result };
}

describe("the v2 client on protocol 2026-07-28", () => {
  it("connects pinned to 2026-07-28 and lists the same tools as a 2025 client", async () => {
    const [v2, v1] = [await modern(), await legacy()];
    expect(v2.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(v2.getProtocolEra()).toBe("modern");
    expect((v1.transport as { protocolVersion?: string }).protocolVersion).toBe("2025-11-25");
    const names = (tools: { name: string }[]) => tools.map((tool) => tool.name).sort();
    const modernTools = (await v2.listTools()).tools;
    expect(modernTools).toHaveLength(15);
    expect(names(modernTools)).toEqual(names((await v1.listTools()).tools));
  });

  it("settles on 2026-07-28 when it negotiates", async () => {
    const client = await modern("auto");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  });

  it("pays 1 credit for a data tool and nothing for check_credits", async () => {
    const client = await modern();
    const paid = await costOf(() => client.callTool(PAID_CALL));
    expect(paid.cost).toBe(1);
    expect((paid.result as { isError?: boolean }).isError).toBeFalsy();
    expect(paid.result).toMatchObject({ structuredContent: { _service: { credits_used: 1 } } });
    const free = await costOf(() => client.callTool({ name: "check_credits", arguments: {} }));
    expect(free.cost).toBe(0);
  });

  it("answers bad arguments as a tool error and charges nothing", async () => {
    const client = await modern();
    const { cost, result } = await costOf(() =>
      client.callTool({ name: "search_subreddits", arguments: { q: "" } }),
    );
    expect(cost).toBe(0);
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toMatch(/Nothing was charged/);
  });

  it("refuses a revision the server does not speak, naming the ones it does", async () => {
    const response = await post(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    );
    const body = (await response.json()) as { error?: { message: string; data?: unknown } };
    expect(body.error?.message).toBeTruthy();
    expect(JSON.stringify(body.error)).toContain("2026-07-28");
    expect(gateway.balances.get(KEY)).toBeGreaterThan(0);
  });
});

describe("clients on the 2025 revisions keep working", () => {
  it("serves the v1 client on 2025-11-25, charging 1 credit per paid call", async () => {
    const client = await legacy();
    const { cost, result } = await costOf(() => client.callTool(PAID_CALL));
    expect(cost).toBe(1);
    expect(result).toMatchObject({ structuredContent: { _service: { credits_used: 1 } } });
  });

  const initialize = (protocolVersion: string) =>
    post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    });

  // The older revisions docs/api.md#mcp-endpoint names, each as a bare client speaks it.
  it.each(["2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"])(
    "serves a bare %s exchange: initialize, then a paid call with that version's header",
    async (version) => {
      expect(await (await initialize(version)).json()).toMatchObject({
        result: { protocolVersion: version },
      });
      const { cost, result } = await costOf(async () => {
        const response = await post(
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: PAID_CALL },
          { "mcp-protocol-version": version },
        );
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        return response.json();
      });
      expect(cost).toBe(1);
      expect(result).toMatchObject({
        id: 2,
        result: { structuredContent: { _service: { credits_used: 1 } } },
      });
    },
  );

  it("answers an initialize asking for a revision it does not speak with 2025-11-25, and refuses that revision's header, charging nothing", async () => {
    expect(await (await initialize("2023-01-01")).json()).toMatchObject({
      result: { protocolVersion: "2025-11-25" },
    });
    const { cost, result } = await costOf(async () => {
      const response = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: PAID_CALL },
        { "mcp-protocol-version": "2023-01-01" },
      );
      expect(response.status).toBe(400);
      return response.json();
    });
    expect(cost).toBe(0);
    expect(JSON.stringify(result)).toContain("2025-11-25");
  });
});
