import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { createGatewayClient, type GatewayClient } from "../src/index.ts";

const KEY = "rdk_errors";

describe("gateway client errors", () => {
  let fake: FakeGateway;
  let client: GatewayClient;

  beforeAll(async () => {
    fake = await startFakeGateway({ [KEY]: 100 });
    client = createGatewayClient({ baseUrl: fake.url, apiKey: KEY });
  });
  afterAll(async () => {
    await client.close();
    await fake.close();
  });

  it("returns a bad_request error with the API's message when a parameter is invalid", async () => {
    const result = await client.listPosts({ subreddit: "ok", limit: 500 });
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({
        kind: "bad_request",
        status: 400,
        retryAfterSeconds: null,
        scope: null,
      }),
    });
    if (!result.ok) expect(result.error.message).toContain("limit");
  });

  it("returns an unauthorized error when the key is unknown", async () => {
    const result = await client.getAccount({ apiKey: "rdk_nobody" });
    expect(!result.ok && result.error).toMatchObject({ kind: "unauthorized", status: 401 });
  });

  it("returns insufficient_credits when the balance is 0", async () => {
    fake.balances.set("rdk_empty", 0);
    const result = await client.searchSubreddits({ q: "abc" }, { apiKey: "rdk_empty" });
    expect(!result.ok && result.error).toMatchObject({ kind: "insufficient_credits", status: 402 });
  });

  it("returns rate_limited with Retry-After seconds and scope key when the key's limit is hit", async () => {
    fake.failNext({ status: 429, error: "rate limit exceeded", headers: { "retry-after": "3" } });
    const result = await client.getSubredditRules({ name: "abc" });
    expect(!result.ok && result.error).toMatchObject({
      kind: "rate_limited",
      status: 429,
      retryAfterSeconds: 3,
      scope: "key",
    });
  });

  it("returns scope global when the 429 carries x-ratelimit-scope: global", async () => {
    fake.failNext({
      status: 429,
      error: "shared capacity exhausted",
      headers: { "retry-after": "1", "x-ratelimit-scope": "global" },
    });
    const result = await client.getCommentTree({ post_id: "abc" });
    expect(!result.ok && result.error).toMatchObject({ scope: "global", retryAfterSeconds: 1 });
  });

  it("returns upstream_unavailable on 502 and an unexpected_status on statuses outside the spec", async () => {
    fake.failNext({ status: 502, error: "upstream down" }, { status: 500, error: "boom" });
    const first = await client.getUserProfile({ name: "someone" });
    const second = await client.getUserProfile({ name: "someone" });
    expect(!first.ok && first.error).toMatchObject({
      kind: "upstream_unavailable",
      message: "upstream down",
    });
    expect(!second.ok && second.error).toMatchObject({ kind: "unexpected_status", status: 500 });
  });

  it("returns a network error, not a throw, when nothing listens at the base URL", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const offline = createGatewayClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY });
    const result = await offline.getAccount();
    expect(!result.ok && result.error).toMatchObject({ kind: "network", status: null });
    await offline.close();
  });

  describe("against a server that misbehaves", () => {
    let url: string;
    const server = createServer((request, response) => {
      if (request.url?.startsWith("/v1/account")) return; // never answers
      response.writeHead(200, { "content-type": "application/json" }).end('{"data": []}');
    });
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it("returns invalid_response when a 200 body lacks _service", async () => {
      const strict = createGatewayClient({ baseUrl: url, apiKey: KEY });
      const result = await strict.listPosts({ subreddit: "abc" });
      expect(!result.ok && result.error).toMatchObject({ kind: "invalid_response", status: 200 });
      await strict.close();
    });

    it("returns timeout when no answer arrives within timeoutMs", async () => {
      const impatient = createGatewayClient({ baseUrl: url, apiKey: KEY, timeoutMs: 200 });
      const result = await impatient.getAccount();
      expect(!result.ok && result.error).toMatchObject({ kind: "timeout", status: null });
      await impatient.close();
    });

    it("returns aborted when the caller's signal fires first", async () => {
      const controller = new AbortController();
      const pending = client.getAccount({ signal: controller.signal });
      controller.abort();
      const result = await pending;
      expect(!result.ok && result.error).toMatchObject({ kind: "aborted" });
    });
  });
});
