import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, MCP_PREFIX, SYSTEM_PATHS } from "../../services/gateway/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let document: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  stack = await startStack();
  document = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as typeof document;
});
afterAll(async () => stack.stop());

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, version 1.0.0, per a real validator", async () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : (result as { errors?: unknown }).errors).toEqual([]);
  });

  it("lists every route the gateway serves, with its method", () => {
    for (const route of API_ROUTES) expect(document.paths[route.path]?.get, route.path).toBeDefined();
    for (const path of SYSTEM_PATHS) expect(document.paths[path]?.get, path).toBeDefined();
    expect(document.paths[MCP_PREFIX]?.post).toBeDefined();
  });

  it("describes both auth schemes and the credit, retry and scope headers", () => {
    const doc = document as unknown as {
      components: { securitySchemes: Record<string, unknown>; headers: Record<string, unknown> };
    };
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["ApiKeyHeader", "BearerAuth"]);
    for (const header of ["CreditsUsed", "CreditsRemaining", "RetryAfter", "RateLimitScope", "RequestId"]) {
      expect(doc.components.headers[header]).toBeDefined();
    }
  });
});
