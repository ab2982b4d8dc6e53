/**
 * The Tasks extension over exports (docs/api.md#mcp-endpoint-tasks), through a gateway behind a
 * balancer, two MCP replicas behind another (their inner calls go through the same gateway), the
 * whole stack and a slowed exports service. A client speaking 2026-07-28 that declares the extension
 * gets a task for a started export and polls it with tasks/get through a dropped connection, an MCP
 * replica restart and a gateway restart to its result (link and manifest); a second export is
 * cancelled through tasks/cancel. The key pays exactly the pages each export fetched, and the ledger
 * verifies. Without the extension the same call answers at once.
 */
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../services/gateway/src/index.ts";
import { type McpHandle, startMcp } from "../../services/mcp/src/index.ts";
import { connectModernClient } from "../../services/mcp/test/support/mcp-client.ts";
import { type RoundRobin, startRoundRobin } from "../support/round-robin.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, FAST, startExportsBeside, verifyLedger } from "./exports.support.ts";
import { extensionDispatch, modernRequest, TASKS } from "./mcp-tasks.support.ts";

let stack: Stack;
let exportsService: ExportsBeside;
/** In front of the MCP replicas. */
let balancer: RoundRobin;
let replicas: McpHandle[];
/** In front of the gateway, which the client and the replicas' inner calls both reach through it. */
let gatewayBalancer: RoundRobin;
let gateway: RunningGateway;
let endpoint: string;

const startReplica = () =>
  startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: gatewayBalancer.url, logger: silentLogger() });

/** A gateway replica for the MCP replicas' balancer, put behind the gateway balancer. */
async function startTaskGateway(): Promise<RunningGateway> {
  const started = await stack.startGateway({ mcpUrl: balancer.url });
  gatewayBalancer.setTargets([started.url]);
  return started;
}

beforeAll(async () => {
  stack = await startStack();
  // Two pages a second over a window of about 24 pages, so a task is still working after a replica
  // and a gateway restart, and can be cancelled before it ends.
  exportsService = await startExportsBeside(stack, { ...FAST, pagesPerSecond: 2 });
  gatewayBalancer = await startRoundRobin();
  replicas = await Promise.all([startReplica(), startReplica()]);
  balancer = await startRoundRobin();
  balancer.setTargets(replicas.map((replica) => replica.url));
  gateway = await startTaskGateway();
  endpoint = `${gatewayBalancer.url}/mcp`;
}, 120_000);
afterAll(async () => {
  for (const replica of replicas ?? []) await replica.stop();
  await balancer?.close();
  await gatewayBalancer?.close();
  await exportsService?.stop();
  await stack?.stop();
});

const modern = (
  key: string,
  method: string,
  params: Record<string, unknown>,
  options: Parameters<typeof modernRequest>[4] = {},
) => modernRequest(endpoint, key, method, params, options);

const window = () => {
  const before = Math.floor(Date.now() / 1000) - 10 * 86_400;
  return { kind: "posts", subreddit: "dataisbeautiful", after: before - 120 * 86_400, before, confirm: true };
};

const startExport = (key: string, tasks: boolean) =>
  modern(key, "tools/call", { name: "start_export", arguments: window() }, { tasks, name: "start_export" });

const getTask = (key: string, taskId: string, signal?: AbortSignal) =>
  modern(key, "tasks/get", { taskId }, { tasks: true, name: taskId, signal });

describe("an export as a task", () => {
  it("answers at once, with no task, when the client did not opt in; and lists which tools may become tasks", async () => {
    const { key } = await stack.createKey({ credits: 100 });
    const started = await startExport(key, false);
    expect(started.result?.resultType).not.toBe("task");
    const exported = (started.result as { structuredContent: { export: { id: string } } }).structuredContent
      .export;
    await modern(
      key,
      "tools/call",
      { name: "get_export", arguments: { id: exported.id } },
      { name: "get_export" },
    );
    const listing = await modern(key, "tools/list", {});
    const tools = (listing.result?.tools ?? []) as {
      name: string;
      _meta?: Record<string, { taskSupport: string }>;
    }[];
    const support = (tool?: (typeof tools)[number]) => tool?._meta?.[TASKS]?.taskSupport;
    expect(support(tools.find((tool) => tool.name === "start_export"))).toBe("optional");
    // A monitor's backfill may become a task too (mcp.monitor-tasks.test.ts); every other tool never does.
    expect(support(tools.find((tool) => tool.name === "create_monitor"))).toBe("optional");
    expect(tools.filter((tool) => support(tool) === "forbidden")).toHaveLength(tools.length - 2);
  });

  it("is polled to completion through a dropped connection, a replica restart and a gateway restart, and costs its pages exactly", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const created = await startExport(key, true);
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result?.taskId ?? "";
    expect(taskId).toMatch(/^export:/);

    const working = await getTask(key, taskId);
    expect(working.result?.status).toBe("working");
    expect(working.result?.statusMessage).toMatch(/\d+ pages, \d+ rows, \d+ credits spent/);

    // The client goes away in the middle of a poll, then a replica restarts on a new address.
    const gone = new AbortController();
    const dropped = getTask(key, taskId, gone.signal).catch((error: Error) => error);
    gone.abort();
    expect(await dropped).toBeInstanceOf(Error);
    await replicas[0]?.stop();
    replicas[0] = await startReplica();
    balancer.setTargets(replicas.map((replica) => replica.url));
    // Two polls in turn reach both replicas: the restarted one answers the task it never saw, which
    // is still running.
    const afterRestart = [await getTask(key, taskId), await getTask(key, taskId)];
    expect(afterRestart.map((polled) => polled.error)).toEqual([undefined, undefined]);
    expect(afterRestart[0]?.result?.status).toBe("working");
    expect(balancer.served.get(replicas[0]!.url)).toBeGreaterThan(0);

    // Then the gateway restarts, on a new address behind the same balancer: a poll while it is down
    // fails, and the next one, through the new gateway, finds the task still running.
    await gateway.stop();
    expect(await getTask(key, taskId).catch((error: Error) => error)).toBeInstanceOf(Error);
    gateway = await startTaskGateway();
    const afterGatewayRestart = await getTask(key, taskId);
    expect(afterGatewayRestart.error).toBeUndefined();
    expect(afterGatewayRestart.result?.status).toBe("working");

    const done = await waitFor(
      async () => {
        const polled = await getTask(key, taskId);
        return polled.result?.status === "completed" ? polled.result : undefined;
      },
      "the task to complete",
      90_000,
    );
    const result = done?.result as {
      structuredContent: {
        file_url: string;
        manifest: { rows: number };
        export: { progress: { credits_spent: number } };
      };
    };
    expect(result.structuredContent.file_url).toMatch(/^\/v1\/exports\/.+\/file$/);
    expect(result.structuredContent.manifest.rows).toBeGreaterThan(0);
    const spent = result.structuredContent.export.progress.credits_spent;
    expect(spent).toBeGreaterThan(0);
    expect(await stack.balanceOf(keyId)).toBe(100 - spent);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 150_000);

  it("is cancelled through tasks/cancel: the export stops and the key pays only the pages fetched", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const created = await startExport(key, true);
    const taskId = created.result?.taskId ?? "";
    const cancelled = await modern(key, "tasks/cancel", { taskId }, { tasks: true, name: taskId });
    expect(cancelled.error).toBeUndefined();
    const settled = await waitFor(async () => {
      const polled = await getTask(key, taskId);
      return polled.result?.status === "cancelled" ? polled.result : undefined;
    }, "the task to be cancelled");
    expect(settled?.statusMessage).toMatch(/cancelled/);
    const exportId = taskId.replace(/^export:/, "");
    const job = await modern(
      key,
      "tools/call",
      { name: "get_export", arguments: { id: exportId } },
      { name: "get_export" },
    );
    const spent = (
      job.result as { structuredContent: { export: { state: string; progress: { credits_spent: number } } } }
    ).structuredContent.export;
    expect(spent.state).toBe("cancelled");
    expect(await stack.balanceOf(keyId)).toBe(100 - spent.progress.credits_spent);
    // Cancelled stays cancelled: a later poll reports the same spend, and the key pays nothing more.
    const later = await getTask(key, taskId);
    expect(later.result?.status).toBe("cancelled");
    expect(later.result?.statusMessage).toContain(`${spent.progress.credits_spent} credits spent`);
    expect(await stack.balanceOf(keyId)).toBe(100 - spent.progress.credits_spent);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 90_000);

  it("is followed to its result by the extension's own requester (ext-tasks' session over the v2 client), paying its pages", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const client = await connectModernClient(endpoint, key);
    const session = createTaskSessionFromClient(client, {
      endpointId: "rda-export-tasks",
      rawDispatch: extensionDispatch(endpoint, key),
      v2RequestFraming: {
        protocolVersion: "2026-07-28",
        clientInfo: { name: "ext-tasks-requester", version: "1" },
        clientCapabilities: {},
      },
    });
    try {
      // Ten days of the window: a few pages, so the session polls a few times and sees it end.
      const short = { ...window(), after: window().before - 10 * 86_400 };
      const execution = await session.callTool("start_export", short, { task: { preference: "require" } });
      expect(execution.kind).toBe("task");
      expect(execution.handle?.taskId).toMatch(/^export:/);
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome);
      expect(result.resultType).toBe("complete");
      const { structuredContent } = result as {
        structuredContent?: { file_url: string; export: { progress: { credits_spent: number } } };
      };
      expect(structuredContent?.file_url).toMatch(/^\/v1\/exports\/.+\/file$/);
      const spent = structuredContent?.export.progress.credits_spent ?? 0;
      expect(spent).toBeGreaterThan(0);
      expect(await stack.balanceOf(keyId)).toBe(100 - spent);
    } finally {
      await session.close();
      await client.close();
    }
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 60_000);

  it("keeps another key's task unknown, as its export is", async () => {
    const owner = await stack.createKey({ credits: 100 });
    const stranger = await stack.createKey({ credits: 10 });
    const created = await startExport(owner.key, true);
    const taskId = created.result?.taskId ?? "";
    const seen = await getTask(stranger.key, taskId);
    expect(seen.error?.message).toMatch(/no such export/);
    await modern(owner.key, "tasks/cancel", { taskId }, { tasks: true, name: taskId });
  });
});
