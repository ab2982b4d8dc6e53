import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import {
  type AgentOverFakeGateway,
  connectMcpClient,
  firstText,
  startAgentOverFakeGateway,
} from "./support/mcp-client.ts";

const KEY = `rdk_${"b".repeat(43)}`;
const EMPTY_KEY = `rdk_${"c".repeat(43)}`;
const OTHER_KEY = `rdk_${"e".repeat(43)}`;

describe("tool errors come back as isError results an agent can act on", () => {
  let fixture: AgentOverFakeGateway;
  let gateway: FakeGateway;
  let mcp: McpHandle;
  let agent: Client;

  beforeAll(async () => {
    fixture = await startAgentOverFakeGateway({ [KEY]: 100, [EMPTY_KEY]: 0, [OTHER_KEY]: 100 }, KEY);
    ({ gateway, mcp, agent } = fixture);
  });
  afterAll(async () => fixture.close());

  it("states the key's rate limit and how long to wait when the key is rate limited (429)", async () => {
    // The 429 carries only Retry-After; the limit comes from the free account call made right after.
    gateway.failNext({ status: 429, error: "rate limit exceeded", headers: { "retry-after": "7" } });
    const result = await agent.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      "Rate limited: this API key allows 2 requests per second with bursts of 10, and that is used up; pace calls to at most 2 per second. Wait 7 seconds and call again; nothing was charged.",
    );
    expect(gateway.seen.at(-1)?.url).toBe("/v1/account");
  });

  it("states the limit last seen for the key when the account call is rate limited too", async () => {
    const limited = { status: 429, error: "rate limit exceeded", headers: { "retry-after": "1" } };
    const newcomer = await connectMcpClient(`${mcp.url}/mcp`, OTHER_KEY);
    gateway.failNext(limited, limited);
    const unknown = await newcomer.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(firstText(unknown)).toMatch(
      /^Rate limited: this API key's requests-per-second limit is used up \(check_credits shows the limit, free\)\. Wait 1 second and/,
    );
    await newcomer.callTool({ name: "check_credits", arguments: {} });
    gateway.failNext(limited, limited);
    const known = await newcomer.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(firstText(known)).toMatch(
      /^Rate limited: this API key allows 2 requests per second with bursts of 10/,
    );
    await newcomer.close();
  });

  it("names the shared capacity when the 429 has scope global", async () => {
    gateway.failNext({
      status: 429,
      error: "busy",
      headers: { "retry-after": "2", "x-ratelimit-scope": "global" },
    });
    const result = await agent.callTool({ name: "get_comment_tree", arguments: { post_id: "abc" } });
    expect(firstText(result)).toMatch(/shared upstream capacity.*Wait 2 seconds/);
  });

  it("says the credit was refunded when the data source fails (502)", async () => {
    gateway.failNext({ status: 502, error: "upstream down" });
    const result = await agent.callTool({ name: "get_user_profile", arguments: { name: "someone" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      "The data source is failing right now (upstream down). The credit was refunded. Try again in a few seconds.",
    );
    expect(gateway.balances.get(KEY)).toBe(100);
  });

  it("says refunded once when the API's own 502 message already says so", async () => {
    gateway.failNext({ status: 502, error: "the data source is failing; the credit was refunded" });
    const result = await agent.callTool({ name: "get_user_profile", arguments: { name: "someone" } });
    expect(firstText(result).match(/refunded/g)).toHaveLength(1);
  });

  it("passes the API's message on a 400 and says nothing was charged", async () => {
    gateway.failNext({ status: 400, error: "parameter 'ids' contains 'zz!'" });
    const result = await agent.callTool({ name: "search_posts", arguments: { ids: "abc" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/Invalid arguments: parameter 'ids'.*Nothing was charged/);
  });

  it("says the key is out of credits when the balance is 0 (402)", async () => {
    const broke = await connectMcpClient(`${mcp.url}/mcp`, EMPTY_KEY);
    const result = await broke.callTool({ name: "search_comments", arguments: { subreddit: "abc" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/Out of credits.*Top up/);
    await broke.close();
  });

  it("rejects arguments that break the contract before calling the gateway", async () => {
    const before = gateway.seen.length;
    const tooMany = await agent.callTool({
      name: "search_posts",
      arguments: { subreddit: "abc", limit: 101 },
    });
    const noFilter = await agent.callTool({ name: "search_posts", arguments: { limit: 5 } });
    expect(tooMany.isError).toBe(true);
    expect(firstText(tooMany)).toContain("limit");
    expect(firstText(noFilter)).toContain("give at least one of subreddit, author or ids");
    expect(gateway.seen.length).toBe(before);
  });

  it("answers a transport failure as a tool error, not a crash, when the gateway is unreachable", async () => {
    const orphan = await startMcp({
      port: 0,
      host: "127.0.0.1",
      gatewayUrl: "http://127.0.0.1:1",
      logger: silentLogger(),
    });
    const lonely = await connectMcpClient(`${orphan.url}/mcp`, KEY);
    const result = await lonely.callTool({ name: "check_credits", arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain("could not be reached");
    await lonely.close();
    await orphan.stop();
  });
});
