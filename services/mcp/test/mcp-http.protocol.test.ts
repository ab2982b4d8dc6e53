/**
 * The transport's edges, over real HTTP to the MCP service (a fake gateway behind it): which Accept
 * headers are served, Origin checks and CORS, JSON-RPC batches per protocol version, and the deadline
 * on a request body.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { type McpHandle, startMcp } from "../src/index.ts";

const KEY = `rdk_${"f".repeat(43)}`;
const ALLOWED_ORIGIN = "https://app.example.com";
const BODY_TIMEOUT_MS = 1_000;

const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "curl", version: "1" } },
});
const toolsList = (id: number | string) => ({ jsonrpc: "2.0", id, method: "tools/list" });
const paidCall = (id: number | string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "search_subreddits", arguments: { q: "abc" } },
});

let gateway: FakeGateway;
let mcp: McpHandle;

beforeAll(async () => {
  gateway = await startFakeGateway({ [KEY]: 100 });
  mcp = await startMcp({
    port: 0,
    host: "127.0.0.1",
    gatewayUrl: gateway.url,
    logger: silentLogger(),
    allowedOrigins: [ALLOWED_ORIGIN],
    bodyTimeoutMs: BODY_TIMEOUT_MS,
  });
});
afterAll(async () => {
  await mcp.stop();
  await gateway.close();
});

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${mcp.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": KEY,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe("Accept: the server only answers JSON, so any Accept that admits JSON is served", () => {
  it.each(["application/json", "*/*", "application/json, text/event-stream"])(
    "answers Accept: %s with the JSON result",
    async (accept) => {
      const response = await post(initialize("2025-06-18"), { accept });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({
        id: 1,
        result: { serverInfo: { name: "reddit-data-api" } },
      });
    },
  );

  it("answers a request without Accept, which admits anything", async () => {
    // fetch would add Accept: */*; a bare node request sends none.
    const { status, body } = await bareRequest(`${mcp.url}/mcp`, JSON.stringify(initialize("2025-06-18")), {
      "content-type": "application/json",
      "x-api-key": KEY,
    });
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ id: 1, result: { protocolVersion: "2025-06-18" } });
  });

  it("answers 406 naming application/json when Accept admits neither JSON nor anything", async () => {
    const response = await post(initialize("2025-06-18"), { accept: "text/html, application/json;q=0" });
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual({ error: expect.stringContaining("application/json") });
  });
});

describe("Origin: browsers may call only from the configured origins", () => {
  it("refuses a request from another web origin with 403, before any tool runs", async () => {
    const before = gateway.seen.length;
    const response = await post(paidCall(1), { origin: "https://evil.example" });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: expect.stringContaining("https://evil.example") });
    expect(gateway.seen.length).toBe(before);
  });

  it("serves a configured origin and tells the browser so with CORS headers", async () => {
    const response = await post(initialize("2025-06-18"), { origin: ALLOWED_ORIGIN });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(response.headers.get("vary")).toMatch(/Origin/);
  });

  it("answers a configured origin's preflight with the methods and headers it may send", async () => {
    const response = await fetch(`${mcp.url}/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: ALLOWED_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-api-key, mcp-protocol-version",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
    expect(response.headers.get("access-control-allow-methods")).toMatch(/POST/);
    for (const header of ["content-type", "x-api-key", "authorization", "mcp-protocol-version"]) {
      expect(response.headers.get("access-control-allow-headers")).toContain(header);
    }
  });

  it("refuses another origin's preflight with 403", async () => {
    const response = await fetch(`${mcp.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("serves requests without Origin, as agents and servers send them", async () => {
    const response = await post(initialize("2025-06-18"));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("JSON-RPC batches follow the negotiated protocol version", () => {
  it("refuses a batch under 2025-06-18, which has no batches, and runs none of it", async () => {
    const before = gateway.seen.length;
    const response = await post([paidCall(1), paidCall(2)], { "mcp-protocol-version": "2025-06-18" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: expect.stringMatching(/2025-06-18 has no JSON-RPC batches.*one message per POST/),
      },
    });
    expect(gateway.seen.length).toBe(before);
  });

  it("refuses a batch holding an initialize that settles on a version without batches", async () => {
    const response = await post([initialize("2025-11-25")]);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/2025-11-25/);
  });

  it("answers a one-message batch under 2025-03-26 with an array of one answer", async () => {
    const response = await post([toolsList(7)], { "mcp-protocol-version": "2025-03-26" });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: number; result: { tools: unknown[] } }[];
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
  });

  it("answers each request of a batch, matched by id, when no version header says otherwise", async () => {
    const response = await post([toolsList("a"), toolsList("b")]);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: string }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual(["a", "b"]);
  });

  it("refuses an empty batch with one Invalid Request answer", async () => {
    const response = await post([], { "mcp-protocol-version": "2025-03-26" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600, message: /empty/ } });
  });

  it("refuses a batch that repeats a request id before running any of it, so nothing is charged", async () => {
    const before = { seen: gateway.seen.length, balance: gateway.balances.get(KEY) };
    const response = await post([paidCall(1), paidCall(1), paidCall(1)], {
      "mcp-protocol-version": "2025-03-26",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /id 1 for more than one request/,
    );
    expect(gateway.seen.length).toBe(before.seen);
    expect(gateway.balances.get(KEY)).toBe(before.balance);
  });

  it('treats the ids 1 and "1" as different, as JSON-RPC does', async () => {
    const response = await post([toolsList(1), toolsList("1")], { "mcp-protocol-version": "2025-03-26" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as unknown[]).length).toBe(2);
  });

  it("answers a batch of notifications only with 202 and no body", async () => {
    const response = await post([{ jsonrpc: "2.0", method: "notifications/initialized" }], {
      "mcp-protocol-version": "2025-03-26",
    });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });
});

describe("the request body deadline", () => {
  it("answers 408 and closes when a body trickles in a byte at a time past the deadline", async () => {
    const { port } = new URL(mcp.url);
    const socket = connect(Number(port), "127.0.0.1");
    const body = JSON.stringify(initialize("2025-06-18"));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nx-api-key: ${KEY}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const started = Date.now();
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++] ?? "");
    }, 100);
    const answer = await new Promise<string>((resolve) => {
      let received = "";
      socket.on("data", (chunk) => {
        received += String(chunk);
      });
      socket.on("close", () => resolve(received));
    });
    clearInterval(drip);
    const elapsed = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain(`within ${BODY_TIMEOUT_MS} ms`);
    // The deadline, and not much more: Node checks it about once a second.
    expect(elapsed).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(BODY_TIMEOUT_MS + 5_000);
  });

  it("lets a tool call run past the deadline once its body has arrived", async () => {
    const slow = await startSlowGateway(BODY_TIMEOUT_MS * 2);
    const behindSlow = await startMcp({
      port: 0,
      host: "127.0.0.1",
      gatewayUrl: slow.url,
      logger: silentLogger(),
      bodyTimeoutMs: BODY_TIMEOUT_MS,
    });
    try {
      const response = await fetch(`${behindSlow.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-api-key": KEY },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "check_credits", arguments: {} },
        }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        result: { structuredContent: { data: { credits_balance: 5 } } },
      });
    } finally {
      await behindSlow.stop();
      await slow.close();
    }
  });
});

/** A gateway that answers the account call after `delayMs`, to make a tool call outlast the deadline. */
async function startSlowGateway(delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    setTimeout(() => {
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          data: {
            credits_balance: 5,
            rate_limit: { qps: 2, burst: 10 },
            low_balance_threshold: 100,
            spend: {
              month: "2026-05",
              credits_spent: 0,
              monthly_cap: null,
              resets_at: "2026-06-01T00:00:00.000Z",
            },
          },
          _service: { credits_used: 0, credits_remaining: 5 },
        }),
      );
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function bareRequest(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: "POST", headers }, (incoming) => {
      let text = "";
      incoming.on("data", (chunk) => {
        text += String(chunk);
      });
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body: text }));
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
