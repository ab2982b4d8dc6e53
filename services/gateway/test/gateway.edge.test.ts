/**
 * Hostile input at the edge, black-box over a real socket: malformed URLs, URLs and header fields
 * past the limits, requests trickled a byte at a time. Each gets exactly `{error}` from the catalog,
 * with an `x-request-id`, one access line and the request metrics, and never an echo of what was
 * sent; none is charged, none hangs. A batch of 5,000 ids is read, and its first 100 used.
 */
import { capturingLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, type Harness, startHarness, type TestKey } from "./support/harness.ts";
import { type RawExchange, rawRequest } from "./support/raw-http.ts";

const BODY_TIMEOUT_MS = 2_000;
const captured = capturingLogger("gateway");
let h: Harness;
let key: TestKey;

beforeAll(async () => {
  h = await startHarness({ logger: captured.logger, gateway: { bodyTimeoutMs: BODY_TIMEOUT_MS } });
  key = await h.createKey({ balance: 50 });
});
afterAll(async () => h.stop());

/** The access lines written so far for a status. */
function accessLines(status: number): Record<string, unknown>[] {
  return captured
    .lines()
    .split("\n")
    .filter((line) => line.includes("request completed"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.status === status);
}

async function expectCatalogAnswer(
  answer: { status: number; body: string; headers: (name: string) => string | null | undefined },
  status: number,
  mustNotEcho: string,
) {
  expect(answer.status).toBe(status);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).filter((key) => key !== "param")).toEqual(["error", "code"]);
  expect(answer.body).not.toContain(mustNotEcho);
  expect(answer.headers("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.headers("cache-control")).toBe("no-store");
  const requestId = answer.headers("x-request-id");
  await waitFor(
    () => accessLines(status).some((line) => line.request_id === requestId),
    `an access line for ${requestId}`,
  );
  const metrics = await h.metrics();
  expect(metrics).toMatch(new RegExp(`gateway_http_requests_total\\{[^}]*status="${status}"[^}]*\\} [1-9]`));
}

const fromFetch = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  headers: (name: string) => response.headers.get(name),
});
const fromRaw = (exchange: RawExchange) => ({
  status: exchange.status,
  body: exchange.body,
  headers: (name: string) => exchange.headers[name],
});

describe("hostile input at the gateway's edge", () => {
  it("answers a URL that is not valid percent-encoding 400 {error} without echoing it", async () => {
    const response = await fetch(`${h.url}/v1/users/%E0%A4%A`, { headers: authHeaders(key) });
    await expectCatalogAnswer(await fromFetch(response), 400, "%E0%A4%A");
  });

  it("answers a 1,500-character path name 400 naming the rule, without echoing it", async () => {
    const name = `u${"x".repeat(1_499)}`;
    const response = await fetch(`${h.url}/v1/users/${name}`, { headers: authHeaders(key) });
    const answer = await fromFetch(response);
    expect(answer.body).toMatch(/name/);
    await expectCatalogAnswer(answer, 400, name.slice(0, 100));
  });

  it("reads a batch of 5,000 ids (about 40 KB of URL) and uses its first 100, for one credit", async () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => (1_000_000 + i).toString(36)).join(",");
    const before = await h.balanceOf(key);
    const response = await fetch(`${h.url}/v1/posts?ids=${ids}`, { headers: authHeaders(key) });
    expect(response.status).toBe(200);
    const sent = h.adapterParams.at(-1) as { ids: string };
    expect(sent.ids.split(",")).toHaveLength(100);
    await waitFor(async () => (await h.balanceOf(key)) === before - 1, "one credit charged");
  });

  it("answers a URL over 64 KiB 414 {error}, whether fastify or Node's parser refuses it", async () => {
    const within = `/v1/posts?ids=${"a".repeat(70_000)}`;
    const refusedByRoute = await fetch(`${h.url}${within}`, { headers: authHeaders(key) });
    await expectCatalogAnswer(await fromFetch(refusedByRoute), 414, "aaaaaaaaaa");
    const pastHeaders = `GET /v1/posts?ids=${"b".repeat(100_000)} HTTP/1.1\r\nhost: x\r\n\r\n`;
    await expectCatalogAnswer(fromRaw(await rawRequest(h.url, pastHeaders)), 414, "bbbbbbbbbb");
    const longName = await fetch(`${h.url}/v1/users/${"c".repeat(70_000)}`, { headers: authHeaders(key) });
    await expectCatalogAnswer(await fromFetch(longName), 414, "cccccccccc");
  });

  it("answers header fields over 80 KiB 431 {error}, without echoing them", async () => {
    const cookies = Array.from({ length: 9_000 }, (_, i) => `c${i}=dddd`).join("; ");
    const request = `GET /v1/account HTTP/1.1\r\nhost: x\r\ncookie: ${cookies}\r\n\r\n`;
    await expectCatalogAnswer(fromRaw(await rawRequest(h.url, request)), 431, "dddd");
  });

  it("cuts two connections that trickle their headers a byte a second within the deadline, with 408 {error}", async () => {
    const request = `GET /v1/account HTTP/1.1\r\nhost: x\r\nx-api-key: ${key.key}\r\n\r\n`;
    const exchanges = await Promise.all([
      rawRequest(h.url, request, { everyMs: 1_000 }),
      rawRequest(h.url, request, { everyMs: 1_000 }),
    ]);
    for (const exchange of exchanges) {
      // The deadline, plus the second between Node's checks of its connections, plus slack.
      expect(exchange.closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 2_500);
      await expectCatalogAnswer(fromRaw(exchange), 408, key.key);
    }
  });

  it("answers bytes that are not HTTP 400 {error}", async () => {
    const exchange = await rawRequest(h.url, "HELLO\r\n\r\n");
    await expectCatalogAnswer(fromRaw(exchange), 400, "HELLO");
  });
});
