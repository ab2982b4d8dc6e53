/**
 * The monitor tools through the gateway's /mcp over real MCP transport, with the monitors service
 * running: creating and listing are free, a read costs 1 credit only when it returns items, a read
 * stays within the result budget without dropping an item, and a key out of credits sees its
 * monitor paused for credits with nothing charged.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHandle, startMcp } from "../../services/mcp/src/index.ts";
import { connectMcpClient, firstText } from "../../services/mcp/test/support/mcp-client.ts";
import { monitorKeys, type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let monitors: RunningMonitors;
let agent: Client;
let keyId: string;
let secret: string;

beforeAll(async () => {
  stack = await startStack();
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: { tickMs: 100 },
  });
  const created = await stack.createKey({ credits: 100, qps: 50, burst: 100 });
  ({ id: keyId, key: secret } = created);
  agent = await connectMcpClient(`${stack.gatewayUrl}/mcp`, secret);
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await monitors?.stop();
  await stack?.stop();
});

type Monitor = { id: string; status: string; paused_reason?: string };
type Read = {
  data: { items: { id: string; title?: string; body?: string }[]; cursor: string | null };
  _service: { credits_used: number; credits_remaining: number };
  next: { id: string; cursor?: string };
  truncated?: string;
};

async function createLiveMonitor(client: Client, subreddit: string, backfill: string): Promise<string> {
  const created = await client.callTool({
    name: "create_monitor",
    arguments: { kind: "post", subreddit, interval_seconds: 60, backfill_from: backfill },
  });
  expect(created.isError).toBeFalsy();
  const { monitor, backfill_estimate } = created.structuredContent as {
    monitor: Monitor;
    backfill_estimate: { upstream_pages: number };
  };
  expect(firstText(created)).toMatch(/Nothing was charged/);
  expect(backfill_estimate.upstream_pages).toBeGreaterThanOrEqual(1);
  await waitFor(
    async () => {
      const listed = await client.callTool({ name: "list_monitors", arguments: {} });
      const { monitors: all } = listed.structuredContent as { monitors: Monitor[] };
      return all.find((one) => one.id === monitor.id)?.status === "live";
    },
    "the backfill",
    30_000,
  );
  return monitor.id;
}

describe("create_monitor, list_monitors and read_monitor_items", () => {
  it("manage for free, charge a read only when it returns items, and follow the cursor to the end", async () => {
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const id = await createLiveMonitor(agent, subreddit, "3d");
    const listed = await agent.callTool({ name: "list_monitors", arguments: {} });
    expect(listed.structuredContent).toMatchObject({ monitors: [{ id }], limit: 25 });
    expect(await stack.balanceOf(keyId)).toBe(100);

    const seen: string[] = [];
    let args: Record<string, unknown> = { id };
    let charged = 0;
    for (;;) {
      const read = await agent.callTool({ name: "read_monitor_items", arguments: args });
      expect(read.isError).toBeFalsy();
      const result = read.structuredContent as Read;
      expect(Buffer.byteLength(JSON.stringify(read))).toBeLessThanOrEqual(40_000);
      if (result.data.items.length === 0) {
        expect(result._service.credits_used).toBe(0);
        expect(firstText(read)).toMatch(/nothing was charged/);
        break;
      }
      expect(result._service.credits_used).toBe(1);
      charged += 1;
      seen.push(...result.data.items.map((item) => item.id));
      args = result.next;
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    await waitFor(async () => (await stack.balanceOf(keyId)) === 100 - charged, "the settled balance");

    const other = await stack.createKey({ credits: 10 });
    const stranger = await connectMcpClient(`${stack.gatewayUrl}/mcp`, other.key);
    const refused = await stranger.callTool({ name: "read_monitor_items", arguments: { id } });
    await stranger.close();
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toMatch(/No such monitor/);
    expect(await stack.balanceOf(other.id)).toBe(10);
  }, 90_000);

  it("refuses bad arguments before any call, for free", async () => {
    const bad = await agent.callTool({
      name: "create_monitor",
      arguments: { kind: "video", subreddit: "pics", interval_seconds: 5 },
    });
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toMatch(/Invalid arguments.*Nothing was charged/);
    const badId = await agent.callTool({ name: "read_monitor_items", arguments: { id: "exp_1" } });
    expect(badId.isError).toBe(true);
  });

  it("keeps a read within a small budget by shortening texts, never dropping an item", async () => {
    const small: McpHandle = await startMcp({
      port: 0,
      host: "127.0.0.1",
      gatewayUrl: stack.gatewayUrl,
      logger: silentLogger(),
      resultBudgetBytes: 6_000,
    });
    const direct = await connectMcpClient(`${small.url}/mcp`, secret);
    try {
      const subreddit = stack.simulator.corpus.subreddits[3]!.name;
      const id = await createLiveMonitor(direct, subreddit, "7d");
      const read = await direct.callTool({ name: "read_monitor_items", arguments: { id } });
      const result = read.structuredContent as Read;
      expect(Buffer.byteLength(JSON.stringify(read))).toBeLessThanOrEqual(6_000);
      expect(result.data.items.length).toBeGreaterThan(0);
      // The next read starts right after the last item shown: nothing on the page was left out.
      const after = await direct.callTool({ name: "read_monitor_items", arguments: result.next });
      const rest = (after.structuredContent as Read).data.items.map((item) => item.id);
      const whole = await stack.redis.xrange(monitorKeys(stack.namespace).items(id), "-", "+");
      const ids = whole.map(([, fields]) => (JSON.parse(fields[1] ?? "{}") as { id: string }).id);
      expect([...result.data.items.map((item) => item.id), ...rest]).toEqual(
        ids.slice(0, result.data.items.length + rest.length),
      );
    } finally {
      await direct.close();
      await small.stop();
    }
  }, 90_000);

  it("shows the monitor paused for credits at zero balance and refuses the read uncharged", async () => {
    const poor = await stack.createKey({ credits: 1 });
    const client = await connectMcpClient(`${stack.gatewayUrl}/mcp`, poor.key);
    try {
      const id = await createLiveMonitor(client, stack.simulator.corpus.subreddits[0]!.name, "3d");
      const first = await client.callTool({ name: "read_monitor_items", arguments: { id } });
      expect((first.structuredContent as Read)._service.credits_used).toBe(1);
      const listed = await client.callTool({ name: "list_monitors", arguments: {} });
      expect((listed.structuredContent as { monitors: Monitor[] }).monitors[0]).toMatchObject({
        status: "paused_for_credits",
        paused_reason: "insufficient_credits",
      });
      const refused = await client.callTool({
        name: "read_monitor_items",
        arguments: (first.structuredContent as Read).next,
      });
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toMatch(/Out of credits.*Nothing was charged.*same cursor/);
      expect(await stack.balanceOf(poor.id)).toBe(0);
    } finally {
      await client.close();
    }
  }, 60_000);
});
