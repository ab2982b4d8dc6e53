/**
 * The error catalog (packages/contracts/src/errors.ts) is the single truth of the gateway's errors,
 * checked as fastify checks its own error module: every catalog entry is reachable from a code path,
 * every status an endpoint documents in the OpenAPI document comes from the codes it can answer, and
 * every status the code can answer is documented.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  buildOpenApiDocument,
  ERRORS,
  type ErrorCode,
  MCP_ERROR_CODES,
  PUBLIC_ROUTES,
  statusesOf,
} from "@rda/contracts";
import { describe, expect, it } from "vitest";

/** The gateway answers every error; the services behind it name the refusals they send it. */
const ANSWERING_SOURCES = ["gateway", "monitors", "exports"].map((service) =>
  join(import.meta.dirname, "../../services", service, "src"),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Catalog codes named as string literals in the gateway's source: the code paths that answer them. */
function codesAnsweredByGateway(): Set<string> {
  const source = ANSWERING_SOURCES.flatMap(sourceFiles)
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
  return new Set(Object.keys(ERRORS).filter((code) => source.includes(`"${code}"`)));
}

// biome-ignore lint/suspicious/noExplicitAny: the test walks an arbitrary JSON document by path.
const document = buildOpenApiDocument() as Record<string, any>;
const documentedStatuses = (responses: Record<string, unknown>) =>
  Object.keys(responses)
    .filter((status) => Number(status) >= 400)
    .map(Number)
    .sort((a, b) => a - b);

describe("the error catalog", () => {
  it("has no entry that no gateway code path answers, and every code path names a catalog entry", () => {
    expect([...codesAnsweredByGateway()].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it("lists only catalog codes for each route and for /mcp", () => {
    const lists = [...PUBLIC_ROUTES.map((route) => route.errors), MCP_ERROR_CODES];
    for (const code of lists.flat()) {
      expect(ERRORS[code as ErrorCode], code).toBeDefined();
    }
  });

  it("documents for each route exactly the statuses of the codes it can answer", () => {
    for (const route of PUBLIC_ROUTES) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses;
      expect(documentedStatuses(responses), route.operationId).toEqual(statusesOf(route.errors));
    }
    // /mcp: the gateway's refusals, plus the MCP service's own (JSON-RPC 400, Origin 403, Accept 406).
    const mcpServiceOwn = [400, 403, 406];
    expect(documentedStatuses(document.paths["/mcp"].post.responses)).toEqual(
      [...new Set([...statusesOf(MCP_ERROR_CODES), ...mcpServiceOwn])].sort((a, b) => a - b),
    );
  });

  it("describes each documented status with every catalog entry of that status", () => {
    for (const [name, response] of Object.entries(document.components.responses)) {
      const status = Number(name.replace("Error", ""));
      const entries = Object.values(ERRORS).filter((entry) => entry.status === status);
      expect(entries.length, name).toBeGreaterThan(0);
      for (const entry of entries)
        expect((response as { description: string }).description).toContain(entry.description);
    }
  });

  it("says 'refunded' in a public message only where the answer adds it after an actual refund", () => {
    for (const [code, entry] of Object.entries(ERRORS)) expect(entry.message, code).not.toMatch(/refunded/);
  });

  it("gives Retry-After to every 429 and 503 and the scope header to the global 429s", () => {
    const responses = document.components.responses;
    expect(responses.Error429.headers).toHaveProperty("Retry-After");
    expect(responses.Error503.headers).toHaveProperty("Retry-After");
    expect(responses.Error429.headers).toHaveProperty("x-ratelimit-scope");
    const scoped = Object.entries(ERRORS).filter(([, entry]) => "scope" in entry);
    for (const [code, entry] of scoped) expect(entry.status, code).toBe(429);
  });
});
