import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { OPERATIONS } from "@rda/contracts";
import type { FakeGateway } from "@rda/gateway-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentOverFakeGateway, firstText, startAgentOverFakeGateway } from "./support/mcp-client.ts";

const KEY = `rdk_${"d".repeat(43)}`;

describe("the tools' contract", () => {
  let fixture: AgentOverFakeGateway;
  let gateway: FakeGateway;
  let agent: Client;

  beforeAll(async () => {
    fixture = await startAgentOverFakeGateway({ [KEY]: 100 }, KEY);
    ({ gateway, agent } = fixture);
  });
  afterAll(async () => fixture.close());

  it("lists exactly the seven tools of the spec, each named in OPERATIONS, read-only, with both schemas", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      Object.values(OPERATIONS)
        .map((op) => op.mcpTool)
        .sort(),
    );
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      expect(tool.outputSchema?.required).toEqual(["data", "_service"]);
      expect(tool.description).toMatch(/credit/);
    }
  });

  it("gives search_posts the HTTP parameters with the same limits and defaults", async () => {
    const { tools } = await agent.listTools();
    const schema = tools.find((tool) => tool.name === "search_posts")?.inputSchema;
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(
      ["after", "author", "before", "fields", "ids", "limit", "q", "sort", "subreddit"].sort(),
    );
    expect(schema?.properties?.limit).toMatchObject({ minimum: 1, maximum: 100, default: 25 });
    expect(schema?.properties?.sort).toMatchObject({ enum: ["asc", "desc"], default: "desc" });
  });

  it("marks only the free check_credits as idempotent and says it costs nothing", async () => {
    const { tools } = await agent.listTools();
    const free = tools.filter((tool) => tool.annotations?.idempotentHint === true);
    expect(free.map((tool) => tool.name)).toEqual(["check_credits"]);
    expect(free[0]?.description).toMatch(/^Free \(0 credits\)/);
  });

  it("returns the envelope as structuredContent, the same JSON as text, and a line on cost and paging", async () => {
    const result = await agent.callTool({ name: "search_posts", arguments: { subreddit: "abc", limit: 3 } });
    const envelope = result.structuredContent as { _service: { cursor: number; credits_remaining: number } };
    expect(JSON.parse(firstText(result))).toEqual(envelope);
    const summary = (result.content as { text: string }[])[1]?.text;
    expect(summary).toBe(
      `Charged 1 credit; ${envelope._service.credits_remaining} remaining. More results: call again with the same arguments and before=${envelope._service.cursor}.`,
    );
  });

  it("tells the agent to page with after when the listing is oldest-first", async () => {
    const result = await agent.callTool({
      name: "search_comments",
      arguments: { author: "x_y", sort: "asc" },
    });
    expect((result.content as { text: string }[])[1]?.text).toMatch(/and after=\d+\.$/);
  });

  it("forwards the caller's key to the gateway on each tool call", async () => {
    await agent.callTool({ name: "check_credits", arguments: {} });
    expect(gateway.seen.at(-1)?.headers["x-api-key"]).toBe(KEY);
    expect(gateway.seen.at(-1)?.url).toBe("/v1/account");
  });
});
