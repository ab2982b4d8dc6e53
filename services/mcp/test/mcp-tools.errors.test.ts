import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ERRORS, type ErrorCode } from "@rda/contracts";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";
import { ERROR_META_KEY } from "../src/results/tool-errors.ts";
import {
  type AgentOverFakeGateway,
  connectMcpClient,
  firstText,
  startAgentOverFakeGateway,
} from "./support/mcp-client.ts";

const KEY = `rdk_${"b".repeat(43)}`;
const EMPTY_KEY = `rdk_${"c".repeat(43)}`;
const OTHER_KEY = `rdk_${"e".repeat(43)}`;

/** The code, wait and request id a failed result carries for the host (docs/api.md#mcp-endpoint-errors). */
function errorMetaOf(result: unknown): unknown {
  return (result as { _meta?: Record<string, unknown> })._meta?.[ERROR_META_KEY];
}

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
    gateway.failNext({
      status: 429,
      error: "rate limit exceeded for this API key",
      code: "rate_limited",
      headers: { "retry-after": "7" },
    });
    const result = await agent.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      "Rate limited (rate_limited): this API key allows 2 requests per second with bursts of 10, and that is used up; pace calls to at most 2 per second. Nothing was charged. Wait 7 seconds and call again.",
    );
    expect(errorMetaOf(result)).toEqual({ code: "rate_limited", retry_after_seconds: 7, request_id: null });
    expect(gateway.seen.at(-1)?.url).toBe("/v1/account");
  });

  it("states the limit last seen for the key when the account call is rate limited too", async () => {
    const limited = {
      status: 429,
      error: "rate limit exceeded for this API key",
      code: "rate_limited",
      headers: { "retry-after": "1" },
    };
    const newcomer = await connectMcpClient(`${mcp.url}/mcp`, OTHER_KEY);
    gateway.failNext(limited, limited);
    const unknown = await newcomer.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(firstText(unknown)).toMatch(
      /^Rate limited \(rate_limited\): this API key's requests-per-second limit is used up \(check_credits shows the limit, free\)\. Nothing was charged\. Wait 1 second and/,
    );
    await newcomer.callTool({ name: "check_credits", arguments: {} });
    gateway.failNext(limited, limited);
    const known = await newcomer.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
    expect(firstText(known)).toMatch(
      /^Rate limited \(rate_limited\): this API key allows 2 requests per second with bursts of 10/,
    );
    await newcomer.close();
  });

  it("tells our spent budget (global_rate_limited) from the data source's refusal (upstream_rate_limited)", async () => {
    const scope = { "x-ratelimit-scope": "global" };
    gateway.failNext(
      {
        status: 429,
        error: ERRORS.global_rate_limited.message,
        code: "global_rate_limited",
        headers: { ...scope, "retry-after": "2", "x-request-id": "req-ours" },
      },
      {
        status: 429,
        error: ERRORS.upstream_rate_limited.message,
        code: "upstream_rate_limited",
        headers: { ...scope, "retry-after": "41", "x-request-id": "req-theirs" },
      },
    );
    const ours = await agent.callTool({ name: "get_comment_tree", arguments: { post_id: "abc" } });
    const theirs = await agent.callTool({ name: "get_comment_tree", arguments: { post_id: "abc" } });
    expect(firstText(ours)).toBe(
      "The service's own budget of requests to the data source, which every account shares, had no turn for this call in time (global_rate_limited). This key's own limit is not the cause, and nothing was sent to the data source. Nothing was charged: any credit taken for this call was refunded. Wait 2 seconds and call again; calling sooner is refused the same way.",
    );
    expect(firstText(theirs)).toBe(
      "The data source itself is rate limiting this service and refused the call (upstream_rate_limited); neither this key's limit nor the service's own budget is the cause. Nothing was charged: any credit taken for this call was refunded. Wait 41 seconds, when the data source's limit allows requests again, and call again.",
    );
    expect(errorMetaOf(ours)).toEqual({
      code: "global_rate_limited",
      retry_after_seconds: 2,
      request_id: "req-ours",
    });
    expect(errorMetaOf(theirs)).toEqual({
      code: "upstream_rate_limited",
      retry_after_seconds: 41,
      request_id: "req-theirs",
    });
  });

  it("tells our own outage (503 service_unavailable) from the data source's failure (502 upstream_unavailable)", async () => {
    gateway.failNext(
      {
        status: 503,
        error: ERRORS.service_unavailable.message,
        code: "service_unavailable",
        headers: { "retry-after": "3" },
      },
      {
        status: 502,
        error: `${ERRORS.upstream_unavailable.message}; the credit was refunded`,
        code: "upstream_unavailable",
      },
    );
    const ours = await agent.callTool({ name: "get_user_profile", arguments: { name: "someone" } });
    const theirs = await agent.callTool({ name: "get_user_profile", arguments: { name: "someone" } });
    expect(firstText(ours)).toBe(
      "The service is briefly unavailable on its own side (service_unavailable); the data source is not at fault. Nothing was charged. Wait 3 seconds and call again.",
    );
    expect(firstText(theirs)).toBe(
      "The data source is failing or unreachable right now, after retries (upstream_unavailable). Nothing was charged: any credit taken for this call was refunded. Call again in a few seconds; if it keeps failing, try later.",
    );
    expect(errorMetaOf(theirs)).toEqual({
      code: "upstream_unavailable",
      retry_after_seconds: null,
      request_id: null,
    });
    expect(gateway.balances.get(KEY)).toBe(100);
  });

  it("reads every catalog code as what happened, uncharged, with the wait Retry-After gives", async () => {
    for (const [code, entry] of Object.entries(ERRORS) as [ErrorCode, (typeof ERRORS)[ErrorCode]][]) {
      const waits = entry.status === 429 || entry.status === 503;
      gateway.failNext({
        status: entry.status,
        error: entry.message,
        code,
        headers: {
          ...("scope" in entry ? { "x-ratelimit-scope": entry.scope } : {}),
          ...(waits ? { "retry-after": "9" } : {}),
        },
      });
      const result = await agent.callTool({ name: "search_subreddits", arguments: { q: "abc" } });
      const text = firstText(result);
      expect(result.isError, code).toBe(true);
      expect(text, code).toContain(`(${code})`);
      // Never charged: the call itself, even when an earlier one with its Idempotency-Key was.
      expect(text, code).toMatch(/Nothing was charged|This call was not charged/);
      expect(text, code).not.toMatch(/credit was taken|costs? \d/);
      if (waits) expect(text, code).toMatch(/\b9 seconds\b/);
      expect(errorMetaOf(result), code).toMatchObject({ code, retry_after_seconds: waits ? 9 : null });
    }
    expect(gateway.balances.get(KEY)).toBe(100);
  });

  it("names both possible causes of a 429 of scope global that carries no code", async () => {
    gateway.failNext({
      status: 429,
      error: "busy",
      headers: { "retry-after": "2", "x-ratelimit-scope": "global" },
    });
    const result = await agent.callTool({ name: "get_comment_tree", arguments: { post_id: "abc" } });
    expect(firstText(result)).toMatch(
      /shared budget of requests to it is spent, or the data source is limiting the service.*Wait 2 seconds/,
    );
    expect(errorMetaOf(result)).toEqual({ code: null, retry_after_seconds: 2, request_id: null });
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
    expect(firstText(result)).toMatch(
      /^Invalid arguments \(invalid_parameter\): parameter 'ids'.*Nothing was charged/,
    );
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
    expect(errorMetaOf(tooMany)).toEqual({
      code: "invalid_parameter",
      retry_after_seconds: null,
      request_id: null,
    });
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
