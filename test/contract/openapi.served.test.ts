import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { MANAGEMENT_ROUTES } from "@rda/contracts";
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, MCP_PREFIX, SYSTEM_PATHS } from "../../services/gateway/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";

const run = promisify(execFile);
const ROOT = new URL("../..", import.meta.url).pathname;
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

let stack: Stack;
let document: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
let folder: string;
let served: string;
beforeAll(async () => {
  stack = await startStack();
  const text = await (await fetch(`${stack.gatewayUrl}/openapi.json`)).text();
  document = JSON.parse(text) as typeof document;
  folder = await mkdtemp(join(tmpdir(), "rda-openapi-"));
  served = join(folder, "openapi.json");
  await writeFile(served, text);
});
afterAll(async () => {
  await stack?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

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
    for (const route of MANAGEMENT_ROUTES)
      expect(document.paths[route.path]?.[route.method.toLowerCase()], route.operationId).toBeDefined();
  });

  it("describes both auth schemes and the credit, retry and scope headers", () => {
    const doc = document as unknown as {
      components: { securitySchemes: Record<string, unknown>; headers: Record<string, unknown> };
    };
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      "ApiKeyHeader",
      "BearerAuth",
      "McpOAuth",
    ]);
    for (const header of ["CreditsUsed", "CreditsRemaining", "RetryAfter", "RateLimitScope", "RequestId"]) {
      expect(doc.components.headers[header]).toBeDefined();
    }
  });

  it("passes Redocly's recommended ruleset with no error and no warning", async () => {
    const { stdout } = await run(
      bin("redocly"),
      ["lint", served, "--config", join(ROOT, "redocly.yaml"), "--format=json"],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("passes Spectral's oas ruleset with no finding of any severity", async () => {
    const { stdout } = await run(
      bin("spectral"),
      ["lint", served, "--ruleset", join(ROOT, ".spectral.yaml"), "--format=json", "--fail-severity=hint"],
      { cwd: ROOT },
    ).catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? "[]" }));
    const findings = JSON.parse(stdout.slice(0, stdout.lastIndexOf("]") + 1)) as unknown[];
    expect(findings).toEqual([]);
  });
});
