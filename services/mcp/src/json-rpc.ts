/** The JSON-RPC side of /mcp's own refusals (parse errors), in the shape MCP clients expect. */

export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INTERNAL_ERROR = -32603;

export function jsonRpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null } as const;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string };

/** The body arrives as text so a malformed one is answered as JSON-RPC -32700, not a generic 400. */
export function parseJsonBody(raw: unknown): ParsedBody {
  if (typeof raw !== "string" || raw.trim() === "") return { ok: false, message: "Parse error: empty body" };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, message: "Parse error: the body is not valid JSON" };
  }
}
