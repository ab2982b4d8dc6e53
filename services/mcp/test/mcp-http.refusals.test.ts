import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";

const KEY = `rdk_${"a".repeat(43)}`;
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
};

describe("the /mcp endpoint's HTTP refusals", () => {
  let gateway: FakeGateway;
  let mcp: McpHandle;

  beforeAll(async () => {
    gateway = await startFakeGateway({ [KEY]: 10 });
    mcp = await startMcp({
      port: 0,
      host: "127.0.0.1",
      gatewayUrl: gateway.url,
      logger: silentLogger(),
      bodyLimitBytes: 4096,
    });
  });
  afterAll(async () => {
    await mcp.stop();
    await gateway.close();
  });

  const post = (body: string, headers: Record<string, string> = { ...JSON_HEADERS, "x-api-key": KEY }) =>
    fetch(`${mcp.url}/mcp`, { method: "POST", headers, body });

  it("answers 401 with {error} and calls nothing when no key is sent", async () => {
    const response = await post(JSON.stringify(INITIALIZE), JSON_HEADERS);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: expect.stringContaining("x-api-key"),
      code: "missing_api_key",
    });
    expect(gateway.seen).toHaveLength(0);
  });

  it("answers 401 when the key is not shaped like an API key", async () => {
    const response = await post(JSON.stringify(INITIALIZE), {
      ...JSON_HEADERS,
      authorization: "Bearer nope",
    });
    expect(response.status).toBe(401);
  });

  it("accepts the key as Authorization: Bearer", async () => {
    const response = await post(JSON.stringify(INITIALIZE), {
      ...JSON_HEADERS,
      authorization: `Bearer ${KEY}`,
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
    ).toBe("reddit-data-api");
  });

  it.each(["GET", "DELETE"])("answers 405 with {error} to %s: no SSE stream, no sessions", async (method) => {
    const response = await fetch(`${mcp.url}/mcp`, { method, headers: { "x-api-key": KEY } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({
      error: expect.stringContaining("stateless"),
      code: "method_not_allowed",
    });
  });

  it("answers a JSON-RPC parse error (-32700) with HTTP 400 when the body is malformed JSON", async () => {
    const response = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("answers 413 with {error} when the body is over the limit", async () => {
    const response = await post(JSON.stringify({ ...INITIALIZE, padding: "x".repeat(5000) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringContaining("4096 bytes") });
  });

  it("answers /livez and /readyz with 200 while running", async () => {
    expect((await fetch(`${mcp.url}/livez`)).status).toBe(200);
    expect((await fetch(`${mcp.url}/readyz`)).status).toBe(200);
  });
});
