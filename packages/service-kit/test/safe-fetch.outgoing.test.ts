/**
 * Outgoing requests to URLs someone else chose never reach the service's own network: a listening
 * socket on loopback sees no connection, whichever way the address is written; a name resolving to
 * loopback is refused after resolution; redirects are not followed; slow and large answers end the
 * fetch. The development switch reaches a local server, which shows the refusals are the rules'.
 */
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BlockedAddressError,
  isPublicAddress,
  OutgoingRequestRefused,
  publicOnlyLookup,
  safeFetch,
} from "../src/index.ts";

/** A plain TCP server that answers HTTP by hand and counts the connections it saw. */
let server: Server;
let port: number;
let connections = 0;
let answer = (socket: Socket) => {
  socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}');
};

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    socket.once("data", () => answer(socket));
    socket.on("error", () => {});
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "fetched",
    (error: unknown) => (error instanceof OutgoingRequestRefused ? "refused" : `other: ${String(error)}`),
  );

describe("safeFetch", () => {
  it("opens no connection to loopback, however the URL writes it", async () => {
    const before = connections;
    const targets = [
      `https://127.0.0.1:${port}/x`,
      `https://127.1.2.3:${port}/x`,
      `https://[::1]:${port}/x`,
      `https://[::ffff:127.0.0.1]:${port}/x`,
      `https://[::ffff:7f00:1]:${port}/x`,
      `https://localhost:${port}/x`,
      `https://2130706433:${port}/x`,
      `https://0x7f.1:${port}/x`,
      `http://127.0.0.1:${port}/x`,
      `https://user:secret@example.com/x`,
      "https://10.0.0.1/x",
      "https://169.254.169.254/latest/meta-data/",
      "https://[fd00:ec2::254]/x",
    ];
    for (const target of targets)
      expect([target, await refusal(safeFetch(target))]).toEqual([target, "refused"]);
    expect(connections).toBe(before);
  });

  it("judges addresses: private, link-local, metadata, shared, IPv6 equivalents are not public", () => {
    for (const address of [
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd00:ec2::254",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::7f00:1",
      "2002:7f00:1::1",
      "2001:db8::1",
      "ff02::1",
    ]) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
    for (const address of ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"]) {
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    }
  });

  it("reaches a local server only with the development switch, and returns its answer", async () => {
    const before = connections;
    const response = await safeFetch(`http://127.0.0.1:${port}/x`, { allowPrivateAddresses: true });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(connections).toBe(before + 1);
  });

  it("with the loopback switch reaches loopback over http, and still no private or metadata address", async () => {
    const before = connections;
    const response = await safeFetch(`http://127.0.0.1:${port}/x`, { allowLoopback: true });
    expect(response.status).toBe(200);
    expect(connections).toBe(before + 1);
    for (const target of ["http://10.0.0.1/x", "http://169.254.169.254/x", "https://10.0.0.1/x"])
      expect([target, await refusal(safeFetch(target, { allowLoopback: true }))]).toEqual([
        target,
        "refused",
      ]);
  });

  it("refuses a name that resolves to a loopback address, after DNS, with BlockedAddressError", async () => {
    const before = connections;
    const error = await safeFetch(`https://localhost:${port}/x`).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(BlockedAddressError);
    const resolved = await new Promise<unknown>((done) =>
      publicOnlyLookup()("localhost", {}, (failure, address) => done(failure ?? address)),
    );
    expect(resolved).toBeInstanceOf(BlockedAddressError);
    expect(connections).toBe(before);
  });

  it("does not follow a redirect to a private or metadata address: the 3xx is the answer", async () => {
    answer = (socket) =>
      socket.end(
        "HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/latest/meta-data/\r\ncontent-length: 0\r\n\r\n",
      );
    const response = await safeFetch(`http://127.0.0.1:${port}/x`, { allowLoopback: true });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
  });

  it("does not follow a redirect: the 3xx is the answer", async () => {
    answer = (socket) =>
      socket.end("HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:1/elsewhere\r\ncontent-length: 0\r\n\r\n");
    const response = await safeFetch(`http://127.0.0.1:${port}/x`, { allowPrivateAddresses: true });
    expect(response.status).toBe(302);
  });

  it("ends a fetch whose answer is too large, or does not come in time", async () => {
    answer = (socket) => socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n${"x".repeat(5_000)}`);
    expect(
      await refusal(
        safeFetch(`http://127.0.0.1:${port}/x`, { allowPrivateAddresses: true, maxBytes: 1_000 }),
      ),
    ).toBe("refused");
    answer = () => {};
    expect(
      await refusal(safeFetch(`http://127.0.0.1:${port}/x`, { allowPrivateAddresses: true, timeoutMs: 300 })),
    ).toBe("refused");
  });
});
