/**
 * Every gateway response, paid or not, tells shared caches not to store it, browsers not to sniff its
 * type, and caches that do key on URLs that the answer depends on the API key.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = (await stack.createKey({ credits: 10 })).key;
});
afterAll(async () => stack.stop());

function expectSafeHeaders(headers: Headers): void {
  expect(headers.get("cache-control")).toBe("no-store");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("vary")).toBe("Authorization, x-api-key");
}

describe("headers on every gateway response", () => {
  it("marks a paid 200 as not storable, not sniffable and varying on the key headers", async () => {
    const response = await fetch(`${stack.gatewayUrl}/v1/subreddits/search?q=a`, { headers: withKey(key) });
    expect(response.status).toBe(200);
    expectSafeHeaders(response.headers);
  });

  it("marks error answers the same way: 400, 401 and 404", async () => {
    const answers = await Promise.all([
      fetch(`${stack.gatewayUrl}/v1/posts`, { headers: withKey(key) }),
      fetch(`${stack.gatewayUrl}/v1/account`),
      fetch(`${stack.gatewayUrl}/v1/no-such-endpoint`, { headers: withKey(key) }),
    ]);
    expect(answers.map((response) => response.status)).toEqual([400, 401, 404]);
    for (const response of answers) expectSafeHeaders(response.headers);
  });

  it("answers on the internal listener a path it does not serve with the catalog's 404, marked the same way", async () => {
    for (const path of ["/mcp", "/openapi.json", "/docs/"]) {
      const response = await fetch(`${stack.gatewayInternalUrl}${path}`, {
        headers: { "x-request-id": "internal-unserved" },
      });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("x-request-id"), path).toBe("internal-unserved");
      expectSafeHeaders(response.headers);
      expect(await response.json(), path).toEqual({
        error: "no such endpoint: not served on the internal listener",
        code: "not_found",
      });
    }
    // What it serves, it serves as the public port does.
    expect((await fetch(`${stack.gatewayInternalUrl}/v1/account`)).status).toBe(401);
    expect((await fetch(`${stack.gatewayInternalUrl}/readyz`)).status).toBe(200);
  });

  it("marks the OpenAPI document, the account and the docs page the same way", async () => {
    const answers = await Promise.all([
      fetch(`${stack.gatewayUrl}/openapi.json`),
      fetch(`${stack.gatewayUrl}/v1/account`, { headers: withKey(key, "bearer") }),
      fetch(`${stack.gatewayUrl}/docs/`),
    ]);
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    for (const response of answers) expectSafeHeaders(response.headers);
  });

  it("marks even the 400 for a request the HTTP parser rejects", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(stack.gatewayUrl);
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw.startsWith("HTTP/1.1 400")).toBe(true);
    expect(raw).toContain("cache-control: no-store\r\n");
    expect(raw).toContain("x-content-type-options: nosniff\r\n");
    expect(raw).toContain("vary: Authorization, x-api-key\r\n");
  });
});
