/**
 * A monitor's backfill as a task (docs/api.md#mcp-endpoint-tasks), through the gateway's /mcp, two
 * MCP replicas behind a round-robin balancer, the whole stack and a monitors service paging one
 * backfill page per turn. A client that opted in gets a task for `create_monitor` with a backfill,
 * polls it with tasks/get through a dropped connection, an MCP replica restart, a monitors service
 * restart and another gateway to its result, and reads what it collected at the usual price; a second backfill
 * is cancelled through tasks/cancel, which pauses the monitor for free. The ledger verifies.
 */
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHandle, startMcp } from "../../services/mcp/src/index.ts";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type RoundRobin, startRoundRobin } from "../support/round-robin.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";
import { modernRequest, type Rpc } from "./mcp-tasks.support.ts";

let stack: Stack;
let monitors: RunningMonitors;
let balancer: RoundRobin;
let replicas: McpHandle[];
let endpoint: string;

const startReplica = () =>
  startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: stack.gatewayUrl, logger: silentLogger() });
// One backfill page per turn, so a backfill is seen working and can be cancelled before it ends.
const startMonitorsService = () =>
  startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: { tickMs: 250, backfillPagesPerPoll: 1 },
  });

beforeAll(async () => {
  stack = await startStack();
  monitors = await startMonitorsService();
  replicas = await Promise.all([startReplica(), startReplica()]);
  balancer = await startRoundRobin();
  balancer.setTargets(replicas.map((replica) => replica.url));
  endpoint = `${(await stack.startGateway({ mcpUrl: balancer.url })).url}/mcp`;
}, 120_000);
afterAll(async () => {
  for (const replica of replicas ?? []) await replica.stop();
  await balancer?.close();
  await monitors?.stop();
  await stack?.stop();
});

const modern = (
  key: string,
  method: string,
  params: Record<string, unknown>,
  options: Parameters<typeof modernRequest>[4] = {},
) => modernRequest(endpoint, key, method, params, options);

/** The community with the most posts in the last `days`: its backfill takes several pages. */
function busiestCommunity(days: number): string {
  const { corpus } = stack.simulator;
  const now = Math.floor(Date.now() / 1000);
  const counts = new Map<number, number>();
  for (let post = 0; post < corpus.posts.count; post += 1) {
    const created = corpus.anchor + (corpus.posts.created[post] as number);
    const sub = corpus.posts.sub[post] as number;
    if (created > now - days * 86_400 && created <= now) counts.set(sub, (counts.get(sub) ?? 0) + 1);
  }
  const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0];
  return corpus.subreddits[busiest]!.name;
}

const createMonitor = (key: string, tasks: boolean, args: Record<string, unknown>) =>
  modern(
    key,
    "tools/call",
    { name: "create_monitor", arguments: { kind: "post", interval_seconds: 60, ...args } },
    { tasks, name: "create_monitor" },
  );

const getTask = (key: string, taskId: string, signal?: AbortSignal) =>
  modern(key, "tasks/get", { taskId }, { tasks: true, name: taskId, signal });

const structured = (rpc: Rpc) =>
  (rpc.result as { structuredContent: Record<string, unknown> }).structuredContent;

describe("a monitor's backfill as a task", () => {
  it("answers at once, with no task, without the extension or without a backfill", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const plain = await createMonitor(key, false, { subreddit, backfill_from: "3d" });
    expect(plain.result?.resultType).not.toBe("task");
    expect(structured(plain).monitor).toMatchObject({ status: "backfilling" });
    const noBackfill = await createMonitor(key, true, { subreddit });
    expect(noBackfill.result?.resultType).not.toBe("task");
    expect(structured(noBackfill).monitor).toMatchObject({ backfill_from: null });
  });

  it("is polled to completion through a dropped connection and restarts, and its items cost what reads cost", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const created = await createMonitor(key, true, { subreddit: busiestCommunity(90), backfill_from: "90d" });
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result?.taskId ?? "";
    expect(taskId).toMatch(/^monitor:mon_/);

    const working = await waitFor(async () => {
      const polled = await getTask(key, taskId);
      return polled.result?.statusMessage?.toString().match(/[1-9]\d* pages read/)
        ? polled.result
        : undefined;
    }, "the backfill's first pages");
    expect(working?.status).toBe("working");
    expect(working?.statusMessage).toMatch(
      /Backfilling: \d+% of the window, through .+, \d+ pages read, \d+ items collected, 0 credits spent/,
    );

    // The client goes away mid-poll; an MCP replica and the monitors service restart.
    const gone = new AbortController();
    const dropped = getTask(key, taskId, gone.signal).catch((error: Error) => error);
    gone.abort();
    expect(await dropped).toBeInstanceOf(Error);
    await replicas[0]?.stop();
    replicas[0] = await startReplica();
    balancer.setTargets(replicas.map((replica) => replica.url));
    await monitors.stop();
    monitors = await startMonitorsService();
    // Two polls in turn reach both replicas: the restarted one answers the task it never saw, whose
    // backfill goes on from where the stopped monitors service left it.
    const afterRestart = [await getTask(key, taskId), await getTask(key, taskId)];
    expect(afterRestart.map((polled) => polled.error)).toEqual([undefined, undefined]);
    expect(afterRestart[0]?.result?.status).toBe("working");
    expect(balancer.served.get(replicas[0]!.url)).toBeGreaterThan(0);
    // Nor is the task a gateway's: another gateway started now answers it.
    const otherGateway = await stack.startGateway({ mcpUrl: balancer.url });
    const viaOther = await modernRequest(
      `${otherGateway.url}/mcp`,
      key,
      "tasks/get",
      { taskId },
      {
        tasks: true,
        name: taskId,
      },
    );
    expect(viaOther.result?.taskId).toBe(taskId);

    const done = await waitFor(
      async () => {
        const polled = await getTask(key, taskId);
        return polled.result?.status === "completed" ? polled.result : undefined;
      },
      "the backfill to complete",
      90_000,
    );
    const result = done?.result as {
      structuredContent: { monitor: { id: string; status: string; items_collected: number }; next: unknown };
    };
    const { monitor } = result.structuredContent;
    expect(monitor.status).toBe("live");
    expect(monitor.items_collected).toBeGreaterThan(0);
    expect(result.structuredContent.next).toEqual({
      tool: "read_monitor_items",
      arguments: { id: monitor.id },
    });
    // The backfill itself was free; reading what it collected costs 1 credit per read with items.
    expect(await stack.balanceOf(keyId)).toBe(100);
    const read = await modern(
      key,
      "tools/call",
      { name: "read_monitor_items", arguments: { id: monitor.id } },
      { name: "read_monitor_items" },
    );
    expect((structured(read).data as { items: unknown[] }).items.length).toBeGreaterThan(0);
    expect(await stack.balanceOf(keyId)).toBe(99);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 150_000);

  it("is cancelled through tasks/cancel: the monitor pauses with what it collected, and nothing is charged", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const created = await createMonitor(key, true, {
      subreddit: busiestCommunity(360),
      backfill_from: "360d",
    });
    const taskId = created.result?.taskId ?? "";
    const cancelled = await modern(key, "tasks/cancel", { taskId }, { tasks: true, name: taskId });
    expect(cancelled.error).toBeUndefined();
    const settled = await getTask(key, taskId);
    expect(settled.result?.status).toBe("cancelled");
    expect(settled.result?.statusMessage).toMatch(
      /^Cancelled: the monitor is paused at \d+% of its backfill/,
    );
    const listed = await modern(
      key,
      "tools/call",
      { name: "list_monitors", arguments: {} },
      { name: "list_monitors" },
    );
    const id = taskId.replace(/^monitor:/, "");
    expect(
      (structured(listed).monitors as { id: string; status: string }[]).find((one) => one.id === id),
    ).toMatchObject({
      status: "paused",
    });
    expect(await stack.balanceOf(keyId)).toBe(100);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });

  it("keeps another key's task unknown, as its monitor is", async () => {
    const owner = await stack.createKey({ credits: 10 });
    const stranger = await stack.createKey({ credits: 10 });
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const created = await createMonitor(owner.key, true, { subreddit, backfill_from: "360d" });
    const taskId = created.result?.taskId ?? "";
    expect((await getTask(stranger.key, taskId)).error?.message).toMatch(/no such monitor|not found/i);
    const cancel = await modern(stranger.key, "tasks/cancel", { taskId }, { tasks: true, name: taskId });
    expect(cancel.error).toBeDefined();
    expect((await getTask(owner.key, taskId)).result?.status).not.toBe("cancelled");
  });
});
