/**
 * Requests as a 2026-07-28 client sends them, for the Tasks tests (mcp.tasks.test.ts,
 * mcp.monitor-tasks.test.ts): the envelope in `_meta`, the standard headers, and the Tasks extension
 * declared among the client's capabilities when the test opts in.
 */
export const TASKS = "io.modelcontextprotocol/tasks";

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
  return (await response.json()) as Rpc;
}
