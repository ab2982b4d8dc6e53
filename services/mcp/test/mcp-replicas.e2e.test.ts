/**
 * Two MCP replicas behind the gateway both serve calls. A round-robin balancer
 * sits between the gateway and two startMcp instances; one client's requests alternate between the
 * replicas, which works only because neither keeps state between requests.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Logger } from "@rda/service-kit";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import { connectMcpClient } from "./support/mcp-client.ts";
import { type RoundRobin, startRoundRobin } from "./support/round-robin.ts";

let stack: Stack;
let balancer: RoundRobin;
let replicas: McpHandle[];
let agent: Client;

beforeAll(async () => {
  stack = await startStack();
  const logger: Logger = silentLogger();
  replicas = await Promise.all(
    [1, 2].map(() => startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: stack.gatewayUrl, logger })),
  );
  balancer = await startRoundRobin();
  balancer.setTargets(replicas.map((replica) => replica.url));
  const gateway = await stack.startGateway({ mcpUrl: balancer.url });
  const { key } = await stack.createKey({ credits: 50 });
  agent = await connectMcpClient(`${gateway.url}/mcp`, key);
});
afterAll(async () => {
  await agent?.close();
  for (const replica of replicas ?? []) await replica.stop();
  await balancer?.close();
  await stack?.stop();
});

describe("two MCP replicas behind one gateway", () => {
  it("both answer one client's tool calls, and each call is billed once", async () => {
    const balances: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      const result = await agent.callTool({ name: "search_subreddits", arguments: { q: "a" } });
      expect(result.isError).toBeFalsy();
      balances.push(
        (result.structuredContent as { _service: { credits_remaining: number } })._service.credits_remaining,
      );
    }
    expect(balances).toEqual([49, 48, 47, 46]);
    const [first, second] = replicas.map((replica) => balancer.served.get(replica.url) ?? 0);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
  });
});
