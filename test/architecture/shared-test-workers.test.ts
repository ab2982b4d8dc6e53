/**
 * The service and stack layers run many test files in one worker process, one after another
 * (`isolate: false` in vitest.config.ts). That is sound only while no test file changes what the
 * next file in the same process would see: the environment, the working directory, a module
 * replaced by a mock, faked timers or globals, the global HTTP dispatcher.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

const PROCESS_WIDE = [
  /\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers|spyOn)\(/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*(=[^=]|\?\?=|\|\|=)/,
  /\bdelete\s+process\.env\b/,
  /\bObject\.assign\(\s*process\.env\b/,
  /\bprocess\.chdir\(/,
  /\bsetGlobalDispatcher\(/,
];

function* testSources(dir: string, inTests: boolean): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testSources(path, inTests || entry.name === "test");
    else if (inTests && entry.name.endsWith(".ts")) yield path;
  }
}

describe("test files sharing a worker process", () => {
  it("change nothing process-wide that the next file would inherit", () => {
    const found: string[] = [];
    for (const [top, inTests] of [
      ["test", true],
      ["services", false],
      ["packages", false],
      ["deploy", false],
    ] as const)
      for (const file of testSources(join(ROOT, top), inTests)) {
        const name = relative(ROOT, file);
        if (name === "test/architecture/shared-test-workers.test.ts") continue;
        readFileSync(file, "utf8")
          .split("\n")
          .forEach((line, index) => {
            if (PROCESS_WIDE.some((pattern) => pattern.test(line))) found.push(`${name}:${index + 1}`);
          });
      }
    expect(found).toEqual([]);
  });
});
