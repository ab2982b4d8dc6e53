/**
 * A monitor's backfill as a task (docs/api.md#mcp-endpoint-tasks): `create_monitor` with a
 * `backfill_from`, from a client that opted into the Tasks extension, answers with a task whose id
 * is `monitor:<monitor id>`. The task holds no state of its own: `tasks/get` is
 * `GET /v1/monitors/{id}` with the caller's key, so the id survives disconnects and restarts of any
 * replica, because the monitor's record does.
 *
 * The backfill's state maps onto the task: paging (`backfill_progress` present) is `working`;
 * turned live, it is `completed`, with the monitor and how to read its items as the result; paused
 * during the backfill, `cancelled`; its key revoked during it, `failed`. Cancelling pauses the
 * monitor, by the monitors' money rules: managing is free, the items collected stay readable (a read
 * that returns items costs 1 credit), and `PATCH /v1/monitors/{id}` with `paused: false` resumes the
 * backfill where it stopped (its task then reports `working` again).
 */
import type { CreateTaskResultV2, DetailedTaskV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { MONITOR_DELIVERY_CREDITS, MONITOR_ID_PATTERN } from "@rda/contracts";
import type { GatewayClient, GatewayResult, Monitor, ResourceCallOptions } from "@rda/sdk";
import { describeGatewayError, errorMeta } from "./results/tool-errors.ts";
import { createdTask, detailedTask, type JobAsTask } from "./task-wire.ts";

export const MONITOR_TASK_PREFIX = "monitor:";
/** A backfill reads up to 20 pages a turn, a turn every few seconds. */
const POLL_INTERVAL_MS = 5_000;

interface Progress {
  readonly through: number | null;
  readonly pages_done: number;
}
type MonitorView = Monitor & { backfill_progress?: Progress; items_collected?: number };

/** A created monitor's tool result as a task, when it has a backfill to page; else the result itself. */
export function monitorAsTask(result: CallToolResult): CreateTaskResultV2 | CallToolResult {
  const monitor = (result.structuredContent as { monitor?: MonitorView } | undefined)?.monitor;
  if (result.isError || !monitor || monitor.backfill_from === null || !monitor.backfill_progress)
    return result;
  return createdTask(asTaskOf(monitor));
}

export function monitorIdOf(taskId: string): string | undefined {
  if (!taskId.startsWith(MONITOR_TASK_PREFIX)) return undefined;
  const id = taskId.slice(MONITOR_TASK_PREFIX.length);
  if (!MONITOR_ID_PATTERN.test(id))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `No task ${taskId}: the monitor id is malformed`,
    );
  return id;
}

export async function getMonitorTask(
  client: GatewayClient,
  id: string,
  call: ResourceCallOptions,
): Promise<DetailedTaskV2> {
  return detailedTask(asTaskOf(await answered(client.getMonitor(id, call), id)));
}

/** Pauses the monitor (free); its collected items stay. */
export async function cancelMonitorTask(client: GatewayClient, id: string, call: ResourceCallOptions) {
  await answered(client.updateMonitor(id, { paused: true }, call), id);
}

async function answered(
  pending: Promise<GatewayResult<{ data: { monitor: Monitor } }>>,
  id: string,
): Promise<MonitorView> {
  const result = await pending;
  if (result.ok) return result.value.data.monitor as MonitorView;
  const code =
    result.error.status === 404 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  throw new ProtocolError(
    code,
    `Task ${MONITOR_TASK_PREFIX}${id}: ${describeGatewayError(result.error)}`,
    errorMeta(result.error),
  );
}

function statusOf(monitor: MonitorView): JobAsTask["status"] {
  const paging = monitor.backfill_progress !== undefined;
  if (monitor.status === "revoked") return paging ? "failed" : "completed";
  if (monitor.status === "paused") return paging ? "cancelled" : "completed";
  return paging ? "working" : "completed";
}

function asTaskOf(monitor: MonitorView): JobAsTask {
  return {
    taskId: `${MONITOR_TASK_PREFIX}${monitor.id}`,
    status: statusOf(monitor),
    statusMessage: statusMessage(monitor),
    createdAt: new Date(monitor.created_at * 1000).toISOString(),
    pollIntervalMs: POLL_INTERVAL_MS,
    result: () => presentBackfilled(monitor),
  };
}

/** The backfill done: the monitor, and the call that reads what it collected. */
function presentBackfilled(monitor: MonitorView): CallToolResult {
  const next = { tool: "read_monitor_items", arguments: { id: monitor.id } };
  const text = `Monitor ${monitor.id} finished its backfill with ${monitor.items_collected ?? 0} items collected and is ${monitor.status}. Read them with read_monitor_items({"id":"${monitor.id}"}); ${MONITOR_DELIVERY_CREDITS} credit per read that returns items.`;
  return { content: [{ type: "text", text }], structuredContent: { monitor, next } };
}

/** Pages read, items collected, what it cost, and how long is left at the pace so far. */
function statusMessage(monitor: MonitorView, now = Date.now() / 1000): string {
  const items = `${monitor.items_collected ?? 0} items collected`;
  const free = `0 credits spent (the backfill is free; a read that returns items costs ${MONITOR_DELIVERY_CREDITS})`;
  const progress = monitor.backfill_progress;
  if (!progress) return `Done: ${items}, ${free}; the monitor is ${monitor.status}.`;
  const from = monitor.backfill_from ?? now;
  const through = progress.through ?? from;
  const percent = Math.min(99, Math.max(0, Math.floor(((through - from) / Math.max(1, now - from)) * 100)));
  const done = `${progress.pages_done} pages read, ${items}, ${free}`;
  if (monitor.status === "revoked") return `Failed: its key was revoked; ${done}.`;
  if (monitor.status === "paused")
    return `Cancelled: the monitor is paused at ${percent}% of its backfill; ${done}. PATCH /v1/monitors/${monitor.id} with {"paused":false} resumes it.`;
  const elapsed = now - monitor.created_at;
  const eta =
    through > from && elapsed > 0
      ? `; about ${Math.round(((now - through) * elapsed) / (through - from))} s left`
      : "";
  const waiting = monitor.status === "paused_for_credits" ? " (reads wait for credits)" : "";
  return `Backfilling${waiting}: ${percent}% of the window, through ${new Date(through * 1000).toISOString()}, ${done}${eta}.`;
}
