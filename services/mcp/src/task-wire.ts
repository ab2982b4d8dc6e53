/**
 * A job as a task on the wire of the Tasks extension (protocol 2026-07-28), in the types of the
 * extension's own package: one home for the shapes both kinds of task answer with, an export
 * (tasks.ts) and a monitor's backfill (monitor-tasks.ts). Each says what its job is (`JobAsTask`);
 * this writes it as the created task of a `tools/call`, or as the detailed task of a `tasks/get`.
 * Tasks keep no state of their own, so none expires here (`ttlMs: null`) and each answer is as of now.
 */
import { toJsonValue } from "@modelcontextprotocol/ext-tasks/core";
import type {
  CompletedTaskV2,
  CreateTaskResultV2,
  DetailedTaskV2,
  TaskStatusV2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { type CallToolResult, ProtocolErrorCode } from "@modelcontextprotocol/server";

export interface JobAsTask {
  readonly taskId: string;
  /** What the job's state is as a task; a job never waits for input, so never `input_required`. */
  readonly status: Exclude<TaskStatusV2, "input_required">;
  /** Its progress in words; once it failed, the reason. */
  readonly statusMessage: string;
  readonly createdAt: string;
  readonly pollIntervalMs: number;
  /** Once completed: the tool result the task stands for. */
  readonly result: () => CallToolResult;
}

function taskBase(job: JobAsTask) {
  return {
    taskId: job.taskId,
    statusMessage: job.statusMessage,
    createdAt: job.createdAt,
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: null,
    pollIntervalMs: job.pollIntervalMs,
  };
}

/** The answer of the `tools/call` that started the job. */
export function createdTask(job: JobAsTask): CreateTaskResultV2 {
  return { resultType: "task", status: job.status, ...taskBase(job) };
}

/** The answer of `tasks/get`: once completed with the tool's result, once failed with the reason. */
export function detailedTask(job: JobAsTask): DetailedTaskV2 {
  const base = taskBase(job);
  switch (job.status) {
    case "completed":
      return { ...base, status: "completed", result: asCompleteResult(job.result()) };
    case "failed":
      return {
        ...base,
        status: "failed",
        error: { code: ProtocolErrorCode.InternalError, message: job.statusMessage },
      };
    case "cancelled":
      return { ...base, status: "cancelled" };
    case "working":
      return { ...base, status: "working" };
  }
}

/**
 * A tool result as 2026-07-28 carries it inside a task: a complete `CallToolResult`, which names its
 * `resultType` (the SDK adds it to a direct answer, not to one nested in a task), as plain JSON.
 */
function asCompleteResult(result: CallToolResult): CompletedTaskV2["result"] {
  return toJsonValue({ ...result, resultType: "complete" }) as CompletedTaskV2["result"];
}
