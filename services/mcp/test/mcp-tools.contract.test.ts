import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { OPERATIONS } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGateway } from "../../../test/support/fake-gateway.ts";
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

  it("lists the nine tools of OPERATIONS, read-only, with both schemas, the three export tools and the three monitor tools", async () => {
    const { tools } = await agent.listTools();
    const dataTools = Object.values(OPERATIONS).map((op) => op.mcpTool);
    const resourceTools = [
      "get_export",
      "start_export",
      "list_exports",
      "create_monitor",
      "list_monitors",
      "read_monitor_items",
    ];
    expect(tools.map((tool) => tool.name).sort()).toEqual([...dataTools, ...resourceTools].sort());
    for (const tool of tools.filter((listed) => !resourceTools.includes(listed.name))) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      expect(tool.outputSchema?.required).toEqual(["data", "_service"]);
      expect(tool.description).toMatch(/credit/);
    }
  });

  it("gives search_posts the HTTP parameters with the same limits and defaults", async () => {
    const { tools } = await agent.listTools();
    const schema = tools.find((tool) => tool.name === "search_posts")?.inputSchema;
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(
      [
        "after",
        "author",
        "before",
        "fields",
        "ids",
        "limit",
        "q",
        "sort",
        "subreddit",
        "over_18",
        "spoiler",
        "link_flair_text",
        "author_flair_text",
        "url",
        "url_exact",
        "crosspost_parent_id",
      ].sort(),
    );
    expect(schema?.properties?.limit).toMatchObject({ minimum: 1, maximum: 100, default: 25 });
    expect(schema?.properties?.sort).toMatchObject({ enum: ["asc", "desc"], default: "desc" });
    expect(schema?.properties?.over_18).toMatchObject({ type: "boolean" });
  });

  it("marks only the free check_credits, get_export, list_exports and list_monitors as idempotent and says they cost nothing", async () => {
    const { tools } = await agent.listTools();
    const free = tools.filter((tool) => tool.annotations?.idempotentHint === true);
    expect(free.map((tool) => tool.name)).toEqual([
      "check_credits",
      "get_export",
      "list_exports",
      "list_monitors",
    ]);
    expect(free[0]?.description).toMatch(/^Free \(0 credits\)/);
    expect(free[1]?.description).toMatch(/^Free\. .*never the data/);
    expect(free[2]?.description).toMatch(/^Free\. .*Returns no data/);
    expect(free[3]?.description).toMatch(/^Free\. /);
  });

  it("returns lean items once, as structuredContent, and a short text with the cost and the next call", async () => {
    const result = await agent.callTool({ name: "search_posts", arguments: { subreddit: "abc", limit: 3 } });
    const content = result.structuredContent as {
      data: Record<string, unknown>[];
      _service: { cursor: number; credits_remaining: number };
      next: Record<string, unknown>;
    };
    expect(content.data).toHaveLength(3);
    // The fake API answers selftext too; a lean result leaves it out unless `fields` asks for it.
    expect(Object.keys(content.data[0] ?? {}).sort()).toEqual([
      "author",
      "created_utc",
      "id",
      "subreddit",
      "title",
    ]);
    const { cursor, credits_remaining } = content._service;
    expect(content.next).toEqual({ subreddit: "abc", limit: 3, sort: "desc", before: String(cursor) });
    expect(result.content).toHaveLength(1);
    expect(firstText(result)).toBe(
      `3 posts in r/abc, newest first. Charged 1 credit; ${credits_remaining} remaining. More: call search_posts with ${JSON.stringify(content.next)}.`,
    );
  });

  it("tells the agent to page with after when the listing is oldest-first", async () => {
    const result = await agent.callTool({
      name: "search_comments",
      arguments: { author: "x_y", sort: "asc" },
    });
    expect((result.structuredContent as { next: object }).next).toMatchObject({ author: "x_y", sort: "asc" });
    expect(firstText(result)).toMatch(/"after":"\d+"\}\.$/);
  });

  it("adds the fields named in `fields` and asks the API only for the fields it shows", async () => {
    const result = await agent.callTool({
      name: "search_posts",
      arguments: { subreddit: "abc", limit: 2, fields: ["selftext"] },
    });
    const rows = (result.structuredContent as { data: Record<string, unknown>[] }).data;
    expect(rows[0]).toMatchObject({ id: "p0", title: "Post 0", selftext: "text" });
    const asked = new URL(gateway.seen.at(-1)?.url ?? "", "http://fake").searchParams.get("fields");
    expect(asked?.split(",").sort()).toEqual(
      [
        "author",
        "created_utc",
        "id",
        "num_comments",
        "permalink",
        "score",
        "selftext",
        "subreddit",
        "title",
      ].sort(),
    );
  });

  it("answers a field name that does not exist with the list of valid names, before any call", async () => {
    const before = gateway.seen.length;
    const result = await agent.callTool({
      name: "search_comments",
      arguments: { subreddit: "abc", fields: ["bodyy"] },
    });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /parameter 'fields\.0' must be one of the comment fields: .*\bbody\b.*parent_id/,
    );
    expect(gateway.seen.length).toBe(before);
  });

  it("lists the valid field names in the schema, as an enum a model can read", async () => {
    const { tools } = await agent.listTools();
    const tree = tools.find((tool) => tool.name === "get_comment_tree")?.inputSchema;
    expect(tree?.properties?.fields).toMatchObject({
      type: "array",
      items: { type: "string", enum: expect.arrayContaining(["body", "parent_id", "controversiality"]) },
    });
    expect(tree?.properties?.resume_after).toMatchObject({ type: "string" });
  });

  it("claims tools, resources and prompts, without listChanged or subscribe: a stateless server never sends them", async () => {
    expect(agent.getServerCapabilities()).toEqual({ tools: {}, resources: {}, prompts: {} });
  });

  it("answers an unknown tool with a JSON-RPC error that names the tools", async () => {
    await expect(agent.callTool({ name: "search_everything", arguments: {} })).rejects.toThrow(
      /Unknown tool 'search_everything'; the tools are search_posts, .*check_credits/,
    );
  });

  it("forwards the caller's key to the gateway on each tool call", async () => {
    await agent.callTool({ name: "check_credits", arguments: {} });
    expect(gateway.seen.at(-1)?.headers["x-api-key"]).toBe(KEY);
    expect(gateway.seen.at(-1)?.url).toBe("/v1/account");
  });
});
