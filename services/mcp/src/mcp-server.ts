/**
 * One MCP server per HTTP request, bound to that request's caller. Nothing outlives the request, so
 * any replica can answer any request (no sessions, no SSE stream to resume).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { API_VERSION } from "@rda/contracts";
import type { GatewayClient } from "@rda/gateway-client";
import { registerTool, TOOLS, type ToolCaller } from "./tools/index.ts";

export const SERVER_INFO = { name: "reddit-data-api", version: API_VERSION } as const;

const INSTRUCTIONS = [
  "Read-only access to public Reddit posts, comments, comment trees, communities, rules and user profiles.",
  "Every tool costs 1 credit per call except check_credits, which is free; calls that fail are not charged.",
  "Every result's _service shows credits_used and credits_remaining; list results also carry cursor and has_more for paging.",
].join(" ");

export function createMcpServer(client: GatewayClient, caller: ToolCaller): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) registerTool(server, tool, client, caller);
  return server;
}
