/**
 * Every public route is declared once in packages/contracts, as one PublicRoute (PUBLIC_ROUTES:
 * OPERATIONS for data and account, MANAGEMENT_ROUTES for monitors, deliveries and exports), and
 * each declared route is served by the gateway, documented in /openapi.json under its operationId
 * with exactly the error codes it declares (and so their statuses), and reachable in the SDK's
 * generated types.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ERRORS, PUBLIC_ROUTES, statusesOf } from "@rda/contracts";
import { createGatewayClient } from "@rda/sdk";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refuseUndeclaredRoutes } from "../../services/gateway/src/routes/index.ts";
import { type Stack, startStack } from "../support/stack.ts";

const SDK_TYPES = readFileSync(
  join(import.meta.dirname, "../../packages/sdk/src/generated/openapi.ts"),
  "utf8",
);

const DECLARED = PUBLIC_ROUTES;

let stack: Stack;
// biome-ignore lint/suspicious/noExplicitAny: the test walks the served JSON document by path.
let document: any;
beforeAll(async () => {
  stack = await startStack();
  document = await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json();
}, 60_000);
afterAll(async () => stack?.stop());

const concrete = (path: string) => path.replace(/\{[a-z_]+\}/g, "x1");

describe("the declared routes", () => {
  it("are each served: asked without a key, the gateway refuses the request itself, never 404 or 405", async () => {
    for (const route of DECLARED) {
      const response = await fetch(`${stack.gatewayUrl}${concrete(route.path)}`, { method: route.method });
      // A data route checks its parameters before the key (docs/architecture.md): 400 or 401.
      expect([400, 401], `${route.method} ${route.path}`).toContain(response.status);
      const { code } = (await response.json()) as { code: string };
      expect(["missing_api_key", "invalid_parameter"]).toContain(code);
    }
  });

  it("are each documented in /openapi.json under their operationId, Idempotency-Key where declared", () => {
    for (const route of DECLARED) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      const takesKey = (operation.parameters ?? []).some(
        (parameter: { $ref?: string }) => parameter.$ref === "#/components/parameters/IdempotencyKey",
      );
      expect(takesKey, `${route.operationId} Idempotency-Key`).toBe(route.idempotent);
    }
  });

  it("are each documented with exactly the error codes they declare, each under its status", () => {
    for (const route of DECLARED) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const responses = operation.responses as Record<string, { $ref?: string; description?: string }>;
      expect([...operation["x-error-codes"]].sort(), route.operationId).toEqual([...route.errors].sort());
      const errorStatuses = Object.keys(responses)
        .map(Number)
        .filter((status) => status >= 400);
      expect(
        errorStatuses.sort((a, b) => a - b),
        route.operationId,
      ).toEqual(statusesOf(route.errors));
      for (const status of errorStatuses) {
        const response = responses[String(status)];
        expect(response?.$ref, `${route.operationId} ${status}`).toBe(
          `#/components/responses/Error${status}`,
        );
        expect(document.components.responses[`Error${status}`]).toBeDefined();
        // The response names the route's own codes of that status, one a line, and no other.
        const named = [...(response?.description ?? "").matchAll(/^- `([a-z_]+)`: /gm)].map((m) => m[1]);
        const declared = route.errors.filter((code) => ERRORS[code].status === status);
        expect(named.sort(), `${route.operationId} ${status}`).toEqual([...declared].sort());
      }
    }
  });

  it("document no /v1 route that is not declared", () => {
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith("/v1/"))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(DECLARED.map((route) => `${route.method} ${route.path}`).sort());
  });

  it("are the only routes the gateway serves under /v1: registering an undeclared one fails", async () => {
    // As the gateway builds it: no HEAD route beside each GET.
    const app = Fastify({ exposeHeadRoutes: false });
    refuseUndeclaredRoutes(app);
    expect(() => app.get("/v1/posts", async () => ({}))).not.toThrow();
    expect(() => app.delete("/v1/exports/:id", async () => ({}))).toThrow(
      "DELETE /v1/exports/:id is served but not declared",
    );
    await app.close();
  });

  it("are each reachable in the SDK: its generated types and a method of the client, by operationId", () => {
    const client = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: "unused" }) as unknown as Record<
      string,
      unknown
    >;
    for (const route of DECLARED) {
      expect(SDK_TYPES, route.operationId).toContain(`    ${route.operationId}: {`);
      expect(typeof client[route.operationId], `the SDK's ${route.operationId}`).toBe("function");
    }
  });
});
