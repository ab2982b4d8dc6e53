/**
 * One factory for the data tools, one per OPERATIONS entry, driven by it: the tool's name, its arguments (the
 * operation's params schema, so names, limits and defaults are the HTTP API's; a tool may swap in
 * its presentation arguments, such as `fields` as an enum), the result's data shape and the price
 * all come from the contract. A tool file adds its words for the agent and how its result is
 * presented. Every call goes to the gateway with the caller's key, so billing is HTTP billing.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import {
  creditServiceMetaSchema,
  listServiceMetaSchema,
  OPERATIONS,
  type OperationContract,
  type OperationName,
} from "@rda/contracts";
import { z } from "zod";
import type { Service } from "../results/presentation.ts";
import { type JsonSchema, portableJsonSchema } from "./json-schema.ts";

export type ToolArgs = Record<string, unknown>;
export type ToolEnvelope = { data: unknown; _service: Service };

export interface ToolSpec {
  readonly title: string;
  /** Sentences for the agent; given the result budget so it can be stated as a number. */
  readonly describe: (budgetBytes: number) => string[];
  /** The arguments; the operation's params schema unless the tool presents some differently. */
  readonly input?: z.ZodType;
  /** The shape of `data` in the result; the operation's data schema unless presented differently. */
  readonly data?: z.ZodType;
  /** Whether a result can carry `next` (the arguments of the call that returns what follows). */
  readonly pages?: boolean;
  /** The HTTP parameters for the validated arguments; the arguments themselves by default. */
  readonly httpParams?: (args: ToolArgs) => ToolArgs;
  readonly present: (
    tool: string,
    envelope: ToolEnvelope,
    args: ToolArgs,
    budgetBytes: number,
  ) => CallToolResult;
}

export interface ToolDefinition {
  readonly name: string;
  readonly operation: OperationName;
  readonly spec: ToolSpec;
  readonly input: z.ZodType;
}

export interface ReadyTool {
  readonly definition: ToolDefinition;
  /** What tools/list answers for this tool: computed once per process, not per request. */
  readonly listing: Tool;
  readonly httpParams: (args: ToolArgs) => ToolArgs;
}

export function defineTool(operation: OperationName, spec: ToolSpec): ToolDefinition {
  const contract: OperationContract = OPERATIONS[operation];
  return { name: contract.mcpTool, operation, spec, input: spec.input ?? contract.params };
}

export function prepareTool(definition: ToolDefinition, budgetBytes: number): ReadyTool {
  const { spec, operation } = definition;
  const contract: OperationContract = OPERATIONS[operation];
  const price = contract.credits === 0 ? "Free (0 credits)." : `Costs ${contract.credits} credit per call.`;
  const inputSchema = portableJsonSchema(definition.input, "input");
  return {
    definition,
    httpParams: spec.httpParams ?? ((args) => args),
    listing: {
      name: definition.name,
      title: spec.title,
      description: [price, ...spec.describe(budgetBytes)].join(" "),
      inputSchema: inputSchema as Tool["inputSchema"],
      outputSchema: outputSchema(contract, spec, inputSchema) as Tool["outputSchema"],
      annotations: {
        title: spec.title,
        readOnlyHint: true,
        openWorldHint: true,
        // A paid call changes the balance each time it is repeated; only the free one is idempotent.
        idempotentHint: contract.credits === 0,
        destructiveHint: false,
      },
    },
  };
}

function outputSchema(contract: OperationContract, spec: ToolSpec, inputSchema: JsonSchema): JsonSchema {
  const service = contract.meta === "list" ? listServiceMetaSchema : creditServiceMetaSchema;
  const shape = {
    data: spec.data ?? contract.data,
    _service: service,
    truncated: z.string().optional().meta({
      description: "Present when the result was cut to stay within the byte budget: how much was left out.",
    }),
  };
  const schema = portableJsonSchema(z.object(shape), "output");
  if (!spec.pages) return schema;
  const next = {
    ...inputSchema,
    description: "Present when more follows: the arguments of the call to this same tool that returns it.",
  };
  return { ...schema, properties: { ...(schema.properties as JsonSchema), next } };
}
