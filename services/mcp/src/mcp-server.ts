/**
 * One MCP server per HTTP request, bound to that request's caller. Nothing outlives the request, so
 * any replica can answer any request (no sessions, no SSE stream to resume).
 *
 * It is the SDK's low-level Server rather than McpServer: the tool listing is ours (portable JSON
 * Schemas, computed once per process), and so is the capability set, which is honest this way: a
 * stateless server never sends tools/list_changed, so it does not claim `listChanged`.
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import { API_VERSION, describeIssue, OPERATIONS } from "@rda/contracts";
import type { GatewayClient, GatewayError, OperationInput } from "@rda/sdk";
import { APPS_EXTENSION, declaresApps, linkViews } from "./apps.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { gatewayErrorResult, invalidArgumentsResult, type KeyRate } from "./results/tool-errors.ts";
import {
  asTask,
  optedIntoTasks,
  registerTasks,
  TASK_TOOLS,
  TASKS_EXTENSION,
  taskSupportOf,
} from "./tasks.ts";
import { EXPORT_TOOLS } from "./tools/export-tools.ts";
import { type KeyRates, type ReadyTool, TOOLS, type ToolArgs, type ToolCatalog } from "./tools/index.ts";
import { MONITOR_TOOLS } from "./tools/monitor-tools.ts";
import type { ResourceTool } from "./tools/resource-tool.ts";

/** The tools over exports and monitors, beside the catalog's operations. */
const RESOURCE_TOOLS: readonly ResourceTool[] = [...EXPORT_TOOLS, ...MONITOR_TOOLS];

export const SERVER_INFO = { name: "reddit-data-api", version: API_VERSION } as const;

/**
 * What one successful call of a tool costs, as the contract declares it: a data tool its operation's
 * credits, an export or monitor tool its route's (a monitor's page of items only when it holds one).
 */
export function declaredCredits(name: string): number | undefined {
  const data = TOOLS.find((tool) => tool.name === name);
  if (data) return OPERATIONS[data.operation].credits;
  return RESOURCE_TOOLS.find((tool) => tool.name === name)?.route.credits;
}

const FREE_TOOLS = [...TOOLS, ...RESOURCE_TOOLS]
  .map((tool) => tool.name)
  .filter((name) => declaredCredits(name) === 0);

const INSTRUCTIONS = [
  "Read-only access to public Reddit posts, comments, comment trees, communities, rules and user profiles.",
  `Every tool costs 1 credit per call except ${FREE_TOOLS.slice(0, -1).join(", ")} and ${FREE_TOOLS.at(-1)}, which are free, and read_monitor_items, which is free when it finds nothing new; calls that fail are not charged.`,
  "An export (start_export) runs in the background, charged 1 credit per page it fetches; it returns a link, never the data.",
  "A monitor (create_monitor, free) keeps collecting a community's or an author's new items; read_monitor_items costs 1 credit only when it returns items.",
  "Results are lean: items carry the fields needed to read and cite them, and `fields` asks for more.",
  "When more follows, a result's `next` holds the arguments of the call that returns it.",
].join(" ");

export interface ToolCaller {
  /** What the inner calls authenticate with: the caller's API key, or the gateway's internal credential. */
  apiKey: string;
  requestId: string;
  /** Whose rate limit this is, for the 429 text: the API key, or for an OAuth caller the key id. */
  rateKey: string;
}

export interface McpServerDeps {
  client: GatewayClient;
  catalog: ToolCatalog;
  keyRates: KeyRates;
}

/** `modern`: a 2026-07-28 request, which may use the Tasks extension; `legacy`: a 2025 one. */
export type ProtocolEra = "modern" | "legacy";

export function createMcpServer(
  deps: McpServerDeps,
  caller: ToolCaller,
  era: ProtocolEra = "legacy",
): Server {
  const tasks = era === "modern";
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      resources: {},
      prompts: {},
      ...(tasks ? { extensions: { [TASKS_EXTENSION]: {}, [APPS_EXTENSION]: {} } } : {}),
    },
    instructions: INSTRUCTIONS,
  });
  const listing = { tools: toolListing(deps) };
  // Tools link their views only for a client that declares the Apps extension on this request.
  server.setRequestHandler("tools/list", (_request, context) =>
    declaresApps(context.mcpReq.envelope) ? { tools: linkViews(listing.tools) } : listing,
  );
  server.setRequestHandler("tools/call", async (request, context) => {
    const { name } = request.params;
    const call = { ...caller, signal: context.mcpReq.signal };
    const result = await runTool(deps, name, request.params.arguments ?? {}, call);
    if (!result) throw unknownTool(deps, name);
    // Only a client that opted in on this very request gets a task (docs/api.md#mcp-endpoint-tasks).
    return tasks && TASK_TOOLS.has(name) && optedIntoTasks(context.mcpReq.envelope)
      ? (asTask(name, result) as CallToolResult)
      : result;
  });
  registerResources(server, (name, args, signal) => runTool(deps, name, args, { ...caller, signal }));
  registerPrompts(server);
  if (tasks) registerTasks(server, deps.client, { apiKey: caller.apiKey, requestId: caller.requestId });
  return server;
}

/** Every tool, each saying whether it may answer with a task (only those of TASK_TOOLS may). */
function toolListing(deps: McpServerDeps): Tool[] {
  const tools = [
    ...deps.catalog.tools.map((tool) => tool.listing),
    ...RESOURCE_TOOLS.map((tool) => tool.listing(deps.catalog.budgetBytes)),
  ];
  return tools.map((tool) => ({ ...tool, ...taskSupportOf(tool.name) }));
}

function unknownTool(deps: McpServerDeps, name: string): ProtocolError {
  const names = [
    ...deps.catalog.tools.map((known) => known.definition.name),
    ...RESOURCE_TOOLS.map((known) => known.name),
  ].join(", ");
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool '${name}'; the tools are ${names}`);
}

/** One tool call for this caller, or undefined when no tool has that name. */
export async function runTool(
  deps: McpServerDeps,
  name: string,
  args: unknown,
  call: ToolCaller & { signal: AbortSignal },
): Promise<CallToolResult | undefined> {
  const resourceTool = RESOURCE_TOOLS.find((known) => known.name === name);
  if (resourceTool) return callResourceTool(deps, resourceTool, args, call, call.signal);
  const tool = deps.catalog.byName.get(name);
  return tool ? callTool(deps, tool, args, call) : undefined;
}

async function callTool(
  deps: McpServerDeps,
  tool: ReadyTool,
  raw: unknown,
  call: ToolCaller & { signal: AbortSignal },
): Promise<CallToolResult> {
  const { definition } = tool;
  // Checked here, before any HTTP call, so a wrong argument costs nothing and names the rule it broke.
  const parsed = definition.input.safeParse(raw);
  if (!parsed.success) {
    return invalidArgumentsResult(describeIssue(parsed.error));
  }
  const args = parsed.data as ToolArgs;
  const params = tool.httpParams(args) as OperationInput<typeof definition.operation>;
  const result = await deps.client.call(definition.operation, params, call);
  if (!result.ok) return gatewayErrorResult(result.error, await keyRate(deps, result.error, call));
  const envelope = result.value as {
    data: unknown;
    _service: { credits_used: number; credits_remaining: number };
  };
  if (definition.operation === "getAccount") {
    deps.keyRates.remember(call.rateKey, (envelope.data as { rate_limit: KeyRate }).rate_limit);
  }
  return definition.spec.present(definition.name, envelope, args, deps.catalog.budgetBytes);
}

async function callResourceTool(
  deps: McpServerDeps,
  tool: ResourceTool,
  raw: unknown,
  caller: ToolCaller,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    return invalidArgumentsResult(describeIssue(parsed.error));
  }
  const call = { apiKey: caller.apiKey, requestId: caller.requestId, signal };
  return tool.run(deps.client, parsed.data as Record<string, unknown>, call, deps.catalog.budgetBytes);
}

/** The key's rate limit for the text of a per-key 429: asked afresh, else as last seen. */
async function keyRate(
  deps: McpServerDeps,
  error: GatewayError,
  call: ToolCaller & { signal: AbortSignal },
): Promise<KeyRate | undefined> {
  if (error.kind !== "rate_limited" || error.scope !== "key") return undefined;
  const account = await deps.client.getAccount(call);
  if (!account.ok) return deps.keyRates.recall(call.rateKey);
  deps.keyRates.remember(call.rateKey, account.value.data.rate_limit);
  return account.value.data.rate_limit;
}
