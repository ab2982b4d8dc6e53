/**
 * Tools over a resource of the API (an export, a monitor) rather than an operation of OPERATIONS:
 * their shape, and how each is listed in tools/list.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { PublicRoute } from "@rda/contracts";
import type { ExportCallOptions, GatewayClient } from "@rda/sdk";
import type { z } from "zod";
import { portableJsonSchema } from "./json-schema.ts";

export interface ResourceTool {
  readonly name: string;
  /**
   * The API route a call makes, as the gateway declares it: a successful call costs its `credits`,
   * as a data tool costs its operation's.
   */
  readonly route: PublicRoute;
  readonly input: z.ZodType;
  /** What tools/list answers, stating the result budget as every tool does. */
  listing(budgetBytes: number): Tool;
  run(
    client: GatewayClient,
    args: Record<string, unknown>,
    call: ExportCallOptions,
    budgetBytes: number,
  ): Promise<CallToolResult>;
}

/** The tools/list entry: portable JSON Schemas, the hints, and the result budget in the description. */
export function resourceListing(
  name: string,
  title: string,
  description: string,
  input: z.ZodType,
  output: z.ZodType,
  hints: { readonly readOnly: boolean; readonly idempotent: boolean },
): (budgetBytes: number) => Tool {
  const inputSchema = portableJsonSchema(input, "input") as Tool["inputSchema"];
  const outputSchema = portableJsonSchema(output, "output") as Tool["outputSchema"];
  const annotations = {
    title,
    readOnlyHint: hints.readOnly,
    openWorldHint: true,
    idempotentHint: hints.idempotent,
    destructiveHint: false,
  };
  return (budgetBytes) => ({
    name,
    title,
    description: `${description} A result stays within ${budgetBytes} bytes.`,
    inputSchema,
    outputSchema,
    annotations,
  });
}
