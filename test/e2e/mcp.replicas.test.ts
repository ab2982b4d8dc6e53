/**
 * Two MCP replicas behind the gateway both serve calls, on every protocol revision. A round-robin
 * balancer sits between the gateway and two startMcp instances; each client's requests alternate
 * between the replicas, which works only because neither keeps state between requests: the v1
 * client (2025-11-25, initialize first) and the v2 client (2026-07-28, every request carrying its
 * own protocol version and capabilities). Every paid call is billed once, and the ledger verifies.
 */
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Logger } from "@rda/service-kit";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHandle, startMcp } from "../../services/mcp/src/index.ts";
import { connectMcpClient, connectModernClient } from "../../services/mcp/test/support/mcp-client.ts";
import { type RoundRobin, startRoundRobin } from "../support/round-robin.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";

let stack: Stack;
let balancer: RoundRobin;
let replicas: McpHandle[];
let endpoint: string;

beforeAll(async () => {
  stack = await startStack();
  const logger: Logger = silentLogger();
  replicas = await Promise.all(
    [1, 2].map(() => startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: stack.gatewayUrl, logger })),
  );
  balancer = await startRoundRobin();
  balancer.setTargets(replicas.map((replica) => replica.url));
  const gateway = await stack.startGateway({ mcpUrl: balancer.url });
  endpoint = `${gateway.url}/mcp`;
});
afterAll(async () => {
  for (const replica of replicas ?? []) await replica.stop();
  await balancer?.close();
  await stack?.stop();
});

type CallTool = (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>;

/** Four paid calls; the balance each one reported afterwards. */
async function fourPaidCalls(callTool: CallTool): Promise<number[]> {
  const balances: number[] = [];
  for (let call = 0; call < 4; call += 1) {
    const result = (await callTool({ name: "search_subreddits", arguments: { q: "a" } })) as {
      isError?: boolean;
      structuredContent?: { _service: { credits_remaining: number } };
    };
    expect(result.isError).toBeFalsy();
    balances.push(result.structuredContent?._service.credits_remaining ?? -1);
  }
  return balances;
}

function servedByBoth(before: number[]): void {
  const after = replicas.map((replica) => balancer.served.get(replica.url) ?? 0);
  expect(after[0]).toBeGreaterThan(before[0] ?? 0);
  expect(after[1]).toBeGreaterThan(before[1] ?? 0);
}

const servedSoFar = () => replicas.map((replica) => balancer.served.get(replica.url) ?? 0);

describe("two MCP replicas behind one gateway", () => {
  it("both answer the v1 client's (2025-11-25) tool calls, and each call is billed once", async () => {
    const { key, id } = await stack.createKey({ credits: 50 });
    const before = servedSoFar();
    const agent: Client = await connectMcpClient(endpoint, key);
    try {
      expect(await fourPaidCalls((params) => agent.callTool(params))).toEqual([49, 48, 47, 46]);
    } finally {
      await agent.close();
    }
    servedByBoth(before);
    expect(await stack.balanceOf(id)).toBe(46);
  });

  it("both answer the v2 client's (2026-07-28) tool calls, and each call is billed once", async () => {
    const { key, id } = await stack.createKey({ credits: 50 });
    const before = servedSoFar();
    const agent: ModernClient = await connectModernClient(endpoint, key);
    try {
      expect(agent.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect((await agent.listTools()).tools).toHaveLength(15);
      expect(await fourPaidCalls((params) => agent.callTool(params))).toEqual([49, 48, 47, 46]);
    } finally {
      await agent.close();
    }
    servedByBoth(before);
    expect(await stack.balanceOf(id)).toBe(46);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });
});
