/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) over exports and
 * monitors' backfills (docs/api.md#mcp-endpoint-tasks). A client that declares the extension in a
 * request's capabilities gets, for a `start_export` that starts an export, a task instead of the
 * export's first state, and for a `create_monitor` with a backfill, a task that follows the backfill
 * (monitor-tasks.ts); any other client, and every other tool, gets today's immediate result.
 *
 * The task holds no state of its own: its id is the export's id, so `tasks/get` and `tasks/cancel`
 * are `GET /v1/exports/{id}` and `POST /v1/exports/{id}/cancel` with the caller's key, on whichever
 * replica they land, across client disconnects and restarts. Cancelling follows the export's money
 * rules (pages fetched stay charged, nothing more is); another key's task is unknown, as its export is.
 *
 * The extension's own package (`@modelcontextprotocol/ext-tasks`) gives the id, the opt-in check and
 * the wire types the answers are written in (task-wire.ts); it has no server side to serve tasks
 * with (README.md, "Built on").
 */
import {
  type CreateTaskResultV2,
  hasTaskClientCapabilityV2,
  TASKS_EXTENSION_ID_V2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from "@modelcontextprotocol/server";
import { EXPORT_ID_PATTERN } from "@rda/contracts";
import type { ExportCallOptions, ExportJob, GatewayClient, GatewayResult } from "@rda/sdk";
import { z } from "zod";
import {
  cancelMonitorTask,
  getMonitorTask,
  MONITOR_TASK_PREFIX,
  monitorAsTask,
  monitorIdOf,
} from "./monitor-tasks.ts";
import { describeGatewayError, errorMeta } from "./results/tool-errors.ts";
import { createdTask, detailedTask, type JobAsTask } from "./task-wire.ts";
import { presentExport } from "./tools/export-tools.ts";

export const TASKS_EXTENSION = TASKS_EXTENSION_ID_V2;
/** The tools that may answer with a task; every other tool declares it never does. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(["start_export", "create_monitor"]);

const TASK_PREFIX = "export:";
/** How long a client should wait between two `tasks/get`: an export page takes about a second. */
const POLL_INTERVAL_MS = 2_000;

/** Whether this request's envelope (its `_meta`) declares the Tasks extension among the client's capabilities. */
export function optedIntoTasks(envelope: Record<string, unknown> | undefined): boolean {
  return hasTaskClientCapabilityV2({ _meta: envelope });
}

/**
 * How a tool says whether it may become a task: `execution.taskSupport` in the 2025-11-25 shape, and,
 * since 2026-07-28 tools carry no `execution`, the same under the extension's key in `_meta`.
 */
export function taskSupportOf(name: string) {
  const taskSupport = TASK_TOOLS.has(name) ? "optional" : "forbidden";
  return { execution: { taskSupport }, _meta: { [TASKS_EXTENSION]: { taskSupport } } } as const;
}

/**
 * A task tool's result as a task: a started export, or a created monitor with a backfill to page;
 * the result itself when there is nothing long to follow.
 */
export function asTask(tool: string, result: CallToolResult): CreateTaskResultV2 | CallToolResult {
  if (tool === "create_monitor") return monitorAsTask(result);
  const job = (result.structuredContent as { export?: ExportJob } | undefined)?.export;
  if (result.isError || !job || job.state === "quoted") return result;
  return createdTask(asTaskOf(job));
}

export function registerTasks(server: Server, client: GatewayClient, call: ExportCallOptions): void {
  server.setRequestHandler("tasks/get", { params: taskParams }, async ({ taskId }) => {
    const monitorId = monitorIdOf(taskId);
    if (monitorId !== undefined) return getMonitorTask(client, monitorId, call);
    return detailedTask(asTaskOf(await answered(client.getExport(exportIdOf(taskId), call), taskId)));
  });
  server.setRequestHandler("tasks/cancel", { params: taskParams }, async ({ taskId }) => {
    const monitorId = monitorIdOf(taskId);
    if (monitorId !== undefined) await cancelMonitorTask(client, monitorId, call);
    else await answered(client.cancelExport(exportIdOf(taskId), call), taskId);
    return {};
  });
}

const taskParams = z.looseObject({ taskId: z.string({ error: "taskId is required" }) });

function exportIdOf(taskId: string): string {
  const id = taskId.startsWith(TASK_PREFIX) ? taskId.slice(TASK_PREFIX.length) : "";
  if (!EXPORT_ID_PATTERN.test(id))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `No task ${taskId}: task ids are export:<export id> or ${MONITOR_TASK_PREFIX}<monitor id>`,
    );
  return id;
}

async function answered(pending: Promise<GatewayResult<ExportJob>>, taskId: string): Promise<ExportJob> {
  const result = await pending;
  if (result.ok) return result.value;
  const code =
    result.error.status === 404 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  throw new ProtocolError(
    code,
    `Task ${taskId}: ${describeGatewayError(result.error)}`,
    errorMeta(result.error),
  );
}

/** The export as a task: its state, a message with its progress, and once done its link and manifest. */
function asTaskOf(job: ExportJob): JobAsTask {
  return {
    taskId: `${TASK_PREFIX}${job.id}`,
    status: STATUS[job.state] ?? "working",
    statusMessage: statusMessage(job),
    createdAt: job.created_at,
    pollIntervalMs: POLL_INTERVAL_MS,
    result: () => presentExport(job),
  };
}

const STATUS: Record<string, JobAsTask["status"]> = {
  queued: "working",
  running: "working",
  paused: "working",
  done: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

function statusMessage(job: ExportJob): string {
  const { pages_done, rows_done, credits_spent, percent } = job.progress;
  const done = `${pages_done} pages, ${rows_done} rows, ${credits_spent} credits spent`;
  if (job.state === "done") return `Done: ${done}; the file is at ${job.result?.file_url}.`;
  if (job.state === "failed" || job.state === "cancelled")
    return `${job.state}: ${done}${job.reason ? `; ${job.reason}` : ""}.`;
  if (job.state === "paused") return `Paused: ${done}${job.reason ? `; ${job.reason}` : ""}.`;
  const remaining = Math.max(0, Math.round(job.quote.eta_seconds * (1 - percent / 100)));
  return `${job.state === "queued" ? "Queued" : "Running"}: ${percent}% of the window, ${done}; about ${remaining} s left.`;
}
