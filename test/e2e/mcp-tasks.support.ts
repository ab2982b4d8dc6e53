/**
 * Requests as a 2026-07-28 client sends them, for the Tasks tests (mcp.tasks.test.ts,
 * mcp.monitor-tasks.test.ts): the envelope in `_meta`, the standard headers, and the Tasks extension
 * declared among the client's capabilities when the test opts in. Every task the server answers
 * with (a created task, `tasks/get`, `tasks/cancel`) is checked against the extension's own schemas,
 * from its package (`@modelcontextprotocol/ext-tasks`).
 */
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TASKS_EXTENSION_ID_V2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { expect } from "vitest";

export const TASKS = TASKS_EXTENSION_ID_V2;

/** What the checks need of a schema (the three schemas' own union is too deep for the compiler). */
interface AnswerSchema {
  safeParse(value: unknown): { error?: { issues: unknown[] } };
}

/** The extension's schema for a successful answer to `method`, when the answer is a task's. */
function taskSchemaOf(method: string, result: Rpc["result"]): AnswerSchema | undefined {
  if (method === "tasks/get") return GetTaskResultV2Schema;
  if (method === "tasks/cancel") return CancelTaskResultV2Schema;
  return method === "tools/call" && result?.resultType === "task" ? CreateTaskResultV2Schema : undefined;
}

export interface Rpc {
  result?: Record<string, unknown> & { status?: string; taskId?: string; resultType?: string };
  error?: { code: number; message: string };
}

export async function modernRequest(
  endpoint: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  options: { tasks?: boolean; name?: string; signal?: AbortSignal } = {},
): Promise<Rpc> {
  const capabilities = options.tasks ? { extensions: { [TASKS]: {} } } : {};
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "task-test", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
      },
    },
  };
  const response = await fetch(endpoint, {
    method: "POST",
    signal: options.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": key,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(options.name ? { "mcp-name": options.name } : {}),
    },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Rpc;
  const schema = answer.result && taskSchemaOf(method, answer.result);
  if (schema) {
    const checked = schema.safeParse(answer.result);
    expect(checked.error?.issues, `${method}'s answer by the Tasks extension's schema`).toBeUndefined();
  }
  return answer;
}
