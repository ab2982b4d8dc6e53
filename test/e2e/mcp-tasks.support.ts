/**
 * Requests as a 2026-07-28 client sends them, for the Tasks tests (mcp.tasks.test.ts,
 * mcp.monitor-tasks.test.ts): the envelope in `_meta`, the standard headers, and the Tasks extension
 * declared among the client's capabilities when the test opts in. Every task the server answers
 * with (a created task, `tasks/get`, `tasks/cancel`) is checked against the extension's own schemas,
 * from its package (`@modelcontextprotocol/ext-tasks`).
 */
import type { RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
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
  return post(endpoint, key, body, options.name, options.signal);
}

/**
 * How the extension's own requester (ext-tasks' session) sends its task requests: it frames each
 * one's method and params itself (`_meta`, the capability); this makes it a JSON-RPC request and
 * posts it with the standard headers.
 */
export function extensionDispatch(endpoint: string, key: string): RawClientDispatch {
  let lastId = 0;
  return async (request, options) => {
    const framed = request as { method: string; params?: { name?: unknown; taskId?: unknown } };
    const name = framed.params?.name ?? framed.params?.taskId;
    const body = { jsonrpc: "2.0", id: ++lastId, ...framed };
    const answer = await post(
      endpoint,
      key,
      body,
      typeof name === "string" ? name : undefined,
      options?.signal,
    );
    return answer.error
      ? { kind: "error", error: answer.error }
      : { kind: "result", result: (answer.result ?? null) as JsonValue };
  };
}

async function post(
  endpoint: string,
  key: string,
  body: { method: string },
  name: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Rpc> {
  const response = await fetch(endpoint, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": key,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": body.method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Rpc;
  const schema = answer.result && taskSchemaOf(body.method, answer.result);
  if (schema) {
    const checked = schema.safeParse(answer.result);
    expect(checked.error?.issues, `${body.method}'s answer by the Tasks extension's schema`).toBeUndefined();
  }
  return answer;
}
