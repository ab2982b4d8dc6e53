/**
 * Signed delivery to a real HTTP receiver that verifies each message with the `standardwebhooks`
 * package, and the guard around it: only https to public addresses (loopback only with the
 * local-development switch), checked after DNS, no redirects followed (not even to a private or
 * metadata address), a deadline per attempt. The guard is the service kit's (safeFetch); these are
 * the names this package exports for it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { BlockedAddressError, checkOutgoingUrl, isPublicAddress, publicOnlyLookup } from "@rda/service-kit";
import { freePort } from "@rda/service-kit/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliverWebhook,
  newWebhookSecret,
  openSecret,
  sealingKeyFrom,
  sealSecret,
  urlProblem,
} from "../src/index.ts";

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const received: Received[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body });
      if (request.url === "/redirect") {
        response.writeHead(302, { location: `${base}/elsewhere` }).end();
      } else if (request.url === "/to-metadata") {
        response.writeHead(307, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      } else if (request.url === "/silent") {
        // never answers: the sender's deadline must end it
      } else if (request.url === "/flaky" && received.filter((r) => r.path === "/flaky").length === 1) {
        response.writeHead(503).end();
      } else {
        response.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const message = {
  id: "msg_balance_low_1",
  type: "balance.low",
  data: { key_id: "key_0123456789abcdef", balance: 99 },
};

describe("a signed webhook", () => {
  it("reaches the receiver with Standard Webhooks headers that verify with the endpoint's secret", async () => {
    const secret = newWebhookSecret();
    const result = await deliverWebhook({ url: `${base}/hook`, secret }, message, { allowLoopback: true });
    expect(result).toEqual({ outcome: "delivered", status: 204, attempts: 1 });
    const got = received.filter((r) => r.path === "/hook").at(-1)!;
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: "balance.low", data: message.data });
    expect(got.headers["webhook-id"]).toBe(message.id);
    expect(() =>
      new Webhook(newWebhookSecret()).verify(got.body, got.headers as Record<string, string>),
    ).toThrow();
  });

  it("is tried again after a failure, with the same id", async () => {
    const result = await deliverWebhook({ url: `${base}/flaky`, secret: newWebhookSecret() }, message, {
      allowLoopback: true,
      retryDelayMs: 10,
    });
    expect(result).toEqual({ outcome: "delivered", status: 204, attempts: 2 });
    const ids = received.filter((r) => r.path === "/flaky").map((r) => r.headers["webhook-id"]);
    expect(ids).toEqual([message.id, message.id]);
  });

  it("does not follow a redirect, and gives up on an endpoint that never answers", async () => {
    const secret = newWebhookSecret();
    const options = { allowLoopback: true, attempts: 1, timeoutMs: 500 };
    expect(await deliverWebhook({ url: `${base}/redirect`, secret }, message, options)).toMatchObject({
      outcome: "failed",
      reason: "answered 302",
    });
    expect(received.some((r) => r.path === "/elsewhere")).toBe(false);
    // Nor to a private or metadata address; and even the local switch reaches no private address.
    expect(await deliverWebhook({ url: `${base}/to-metadata`, secret }, message, options)).toMatchObject({
      outcome: "failed",
      reason: "answered 307",
    });
    expect(
      await deliverWebhook({ url: "http://10.0.0.1/hook", secret }, message, {
        ...options,
        allowLoopback: true,
      }),
    ).toMatchObject({ outcome: "refused" });
    expect(await deliverWebhook({ url: `${base}/silent`, secret }, message, options)).toMatchObject({
      outcome: "failed",
    });
  });
});

describe("the outbound guard", () => {
  it("refuses loopback, private and metadata URLs without the local switch, before sending anything", async () => {
    const secret = newWebhookSecret();
    const before = received.length;
    for (const url of [
      `${base}/hook`,
      base.replace("http:", "https:"),
      "https://localhost/hook",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.5/hook",
      "https://10.0.0.1/hook",
      "https://127.0.0.1/hook",
      "http://10.0.0.1/hook",
      "https://[::1]/hook",
      "https://user:pass@example.com/hook",
      "ftp://example.com/hook",
    ]) {
      expect((await deliverWebhook({ url, secret }, message)).outcome, url).toBe("refused");
    }
    expect(received.length).toBe(before);
  });

  it("refuses every name of this machine alike when a URL is saved and when it is fetched", () => {
    for (const host of ["localhost", "localhost.", "foo.localhost", "FOO.LOCALHOST."]) {
      const url = `https://${host}/hook`;
      expect(urlProblem(url), url).toBe("a non-public address");
      expect(() => checkOutgoingUrl(url), url).toThrow(BlockedAddressError);
    }
    expect(urlProblem("https://localhost.example.com/hook")).toBeUndefined();
    expect(() => checkOutgoingUrl("https://localhost.example.com/hook")).not.toThrow();
  });

  it("checks what a name resolves to: localhost's addresses are refused after DNS, unless loopback is allowed", async () => {
    const resolve = (allowLoopback: boolean) =>
      new Promise<unknown>((done) =>
        publicOnlyLookup({ allowLoopback })("localhost", {}, (error, address) => done(error ?? address)),
      );
    expect(await resolve(false)).toBeInstanceOf(BlockedAddressError);
    expect(await resolve(true)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it("tells public addresses from private, loopback, link-local, mapped and unique-local ones", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "not-an-address",
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });
});

describe("sealed secrets", () => {
  it("open with the key that sealed them, and never with another or after tampering", () => {
    const key = sealingKeyFrom(Buffer.alloc(32, 7).toString("base64"));
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openSecret(key, sealed)).toBe(secret);
    expect(() => openSecret(sealingKeyFrom("11".repeat(32)), sealed)).toThrow();
    expect(() => openSecret(key, `${sealed.slice(0, -2)}AA`)).toThrow();
    expect(() => sealingKeyFrom("short")).toThrow(/32 bytes/);
  });
});
