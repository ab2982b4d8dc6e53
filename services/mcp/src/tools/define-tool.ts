/**
 * One factory for the seven tools, driven by OPERATIONS: the tool's name, input schema (the
 * operation's params schema, so names, limits and defaults are the HTTP API's), output schema (the
 * 200 envelope) and price all come from the contract; a tool file adds only its title and its words
 * for the agent. Every call goes to the gateway with the caller's key, so billing is HTTP billing.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { OPERATIONS, type OperationName } from "@rda/contracts";
import { envelopeSchemaOf, type GatewayClient, type OperationInput } from "@rda/gateway-client";
import type { z } from "zod";
import { errorResult, successResult } from "../tool-result.ts";

export interface ToolDefinition {
  readonly name: string;
  readonly operation: OperationName;
  readonly title: string;
  readonly description: string;
}

export interface ToolCaller {
  apiKey: string;
  requestId: string;
}

export function defineTool(
  operation: OperationName,
  words: { title: string; description: string },
): ToolDefinition {
  const contract = OPERATIONS[operation];
  const price = contract.credits === 0 ? "Free (0 credits)." : `Costs ${contract.credits} credit per call.`;
  return {
    name: contract.mcpTool,
    operation,
    title: words.title,
    description: `${price} ${words.description}`,
  };
}

export function registerTool(
  server: McpServer,
  tool: ToolDefinition,
  client: GatewayClient,
  caller: ToolCaller,
): void {
  const contract = OPERATIONS[tool.operation];
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: contract.params as z.ZodObject,
      outputSchema: envelopeSchemaOf(tool.operation) as z.ZodObject,
      annotations: {
        readOnlyHint: true,
        openWorldHint: true,
        // A paid call changes the balance each time it is repeated; only the free one is idempotent.
        idempotentHint: contract.credits === 0,
        destructiveHint: false,
      },
    },
    async (args: Record<string, unknown>, extra) => {
      // The request's signal fires when the agent cancels or disconnects: stop waiting for the API.
      const options = { ...caller, signal: extra.signal };
      const result = await client.call(tool.operation, args as OperationInput<OperationName>, options);
      return result.ok ? successResult(result.value, args) : errorResult(result.error);
    },
  );
}
