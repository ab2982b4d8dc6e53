/** The JSON-RPC side of /mcp's own refusals, in the shape MCP clients expect. */
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { err, ok, type Result } from "@rda/contracts";

export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_INTERNAL_ERROR = -32603;

/** JSON-RPC batches are part of MCP 2025-03-26 (and earlier) and were removed in 2025-06-18. */
const FIRST_VERSION_WITHOUT_BATCHES = "2025-06-18";

export function jsonRpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null } as const;
}

/** The body arrives as text so a malformed one is answered as JSON-RPC -32700, not a generic 400. */
export function parseJsonBody(raw: unknown): Result<unknown> {
  if (typeof raw !== "string" || raw.trim() === "") return err("Parse error: empty body");
  try {
    return ok(JSON.parse(raw));
  } catch {
    return err("Parse error: the body is not valid JSON");
  }
}

/**
 * Why a batch cannot be served, or undefined when it can. The protocol version is the request's
 * MCP-Protocol-Version header, else the one an initialize in the batch would settle on, else the
 * transport spec's assumption for a request without the header (2025-03-26). A batch whose requests
 * share an id is refused whole, before any of it runs: answers are matched to requests by id, so
 * running it would charge for calls whose answers cannot be told apart.
 */
export function batchProblem(
  batch: readonly unknown[],
  headerVersion: string | undefined,
): string | undefined {
  const version = headerVersion ?? initializeVersion(batch) ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (version >= FIRST_VERSION_WITHOUT_BATCHES) {
    return `Invalid Request: MCP protocol version ${version} has no JSON-RPC batches; send one message per POST`;
  }
  if (batch.length === 0) return "Invalid Request: the batch is empty";
  const repeated = repeatedRequestId(batch);
  if (repeated !== undefined) {
    return `Invalid Request: the batch uses the id ${JSON.stringify(repeated)} for more than one request; ids must be unique, so nothing in it was run`;
  }
  return undefined;
}

function initializeVersion(batch: readonly unknown[]): string | undefined {
  for (const message of batch) {
    const { method, params } = (message ?? {}) as {
      method?: unknown;
      params?: { protocolVersion?: unknown };
    };
    if (method !== "initialize") continue;
    const asked = params?.protocolVersion;
    return typeof asked === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
      ? asked
      : LATEST_PROTOCOL_VERSION;
  }
  return undefined;
}

function repeatedRequestId(batch: readonly unknown[]): string | number | undefined {
  const seen = new Set<string>();
  for (const message of batch) {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) continue;
    const key = `${typeof id}:${id}`;
    if (seen.has(key)) return id;
    seen.add(key);
  }
  return undefined;
}
