/**
 * Optional retries: what is retried (429, 503, no answer), how long the client waits (the API's
 * Retry-After), and that every attempt of one call carries the same Idempotency-Key, so the API can
 * answer a retry with the first response instead of charging twice.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { createGatewayClient, type GatewayClient } from "../src/index.ts";

const KEY = "rdk_retries";

let fake: FakeGateway;
let client: GatewayClient;
beforeAll(async () => {
  fake = await startFakeGateway({ [KEY]: 100 });
  client = createGatewayClient({ baseUrl: fake.url, apiKey: KEY, retry: { retries: 2, baseDelayMs: 10 } });
});
afterAll(async () => fake.close());

const idempotencyKeys = (count: number) =>
  fake.seen.slice(-count).map((request) => request.headers["idempotency-key"]);

describe("retries", () => {
  it("waits out a 429's Retry-After, then succeeds, with one Idempotency-Key on both attempts", async () => {
    fake.failNext({ status: 429, error: "rate limit exceeded", headers: { "retry-after": "1" } });
    const started = Date.now();
    const result = await client.listPosts({ subreddit: "typescript", limit: 2 });
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const [first, second] = idempotencyKeys(2);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
  });

  it("retries a 503 up to the limit, then returns the last error", async () => {
    const error = { status: 503, error: "temporarily unavailable", headers: { "retry-after": "1" } };
    fake.failNext(error, error);
    const before = fake.seen.length;
    const result = await client.getSubredditRules({ name: "typescript" }, { retry: { retries: 1 } });
    expect(!result.ok && result.error).toMatchObject({ kind: "service_unavailable", status: 503 });
    expect(fake.seen.length - before).toBe(2);
  });

  it("does not retry a 502 (refunded), a 400 or a 402: the same call would fail the same way", async () => {
    fake.failNext({ status: 502, error: "upstream failing" });
    const before = fake.seen.length;
    const failed = await client.searchSubreddits({ q: "typ" });
    const invalid = await client.listPosts({ subreddit: "typescript", limit: 500 });
    expect(!failed.ok && failed.error.kind).toBe("upstream_unavailable");
    expect(!invalid.ok && invalid.error.kind).toBe("bad_request");
    expect(fake.seen.length - before).toBe(2);
  });

  it("gives up at once when Retry-After is longer than maxDelayMs", async () => {
    fake.failNext({ status: 429, error: "rate limit exceeded", headers: { "retry-after": "120" } });
    const patient = createGatewayClient({
      baseUrl: fake.url,
      apiKey: KEY,
      retry: { retries: 5, maxDelayMs: 500 },
    });
    const before = fake.seen.length;
    const result = await patient.listComments({ author: "someone" });
    expect(!result.ok && result.error).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 120 });
    expect(fake.seen.length - before).toBe(1);
  });

  it("sends the caller's own Idempotency-Key, none on the free account call, and none with retries off", async () => {
    await client.getUserProfile({ name: "someone" }, { idempotencyKey: "order-42-profile" });
    expect(idempotencyKeys(1)).toEqual(["order-42-profile"]);
    await client.getAccount();
    expect(idempotencyKeys(1)).toEqual([undefined]);
    const plain = createGatewayClient({ baseUrl: fake.url, apiKey: KEY });
    await plain.getCommentTree({ post_id: "abc123" });
    expect(idempotencyKeys(1)).toEqual([undefined]);
  });
});

describe("retries when no answer arrives", () => {
  let server: Server;
  let url: string;
  const keys: (string | undefined)[] = [];
  beforeAll(async () => {
    // Drops the first connection without an answer, then answers like the API.
    server = createServer((request, response) => {
      keys.push(request.headers["idempotency-key"] as string | undefined);
      if (keys.length === 1) return request.socket.destroy();
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          data: [],
          _service: { cursor: null, has_more: false, credits_used: 1, credits_remaining: 9 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("retries after a dropped connection with the same Idempotency-Key, so a served first attempt is not paid twice", async () => {
    const api = createGatewayClient({ baseUrl: url, apiKey: KEY, retry: { retries: 1, baseDelayMs: 10 } });
    const result = await api.listPosts({ subreddit: "typescript" });
    expect(result.ok).toBe(true);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
  });

  it("returns the network error without retrying when retries are off", async () => {
    keys.length = 0;
    const api = createGatewayClient({ baseUrl: url, apiKey: KEY });
    const result = await api.listPosts({ subreddit: "typescript" });
    expect(!result.ok && result.error.kind).toBe("network");
    expect(keys).toHaveLength(1);
  });
});
