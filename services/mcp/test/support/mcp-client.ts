/** The SDK's own MCP client over real HTTP, authenticated like an agent would be. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function connectMcpClient(endpoint: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: "rda-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { "x-api-key": apiKey } },
  });
  await client.connect(transport);
  return client;
}

/** The first text block of a tool result. */
export function firstText(result: unknown): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return blocks.find((block) => block.type === "text")?.text ?? "";
}
