/**
 * Lua runs on Redis one way: service-kit's `luaScript` (EVALSHA, loading the script when Redis lost
 * it, traced). A second runner (ioredis' `defineCommand`, a bare `eval`) would skip the tracing and
 * the reload, and needs casts to type its commands; no production source may start one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const THE_RUNNER = "packages/service-kit/src/lua-script.ts";
const OTHER_RUNNER = [
  /\bdefineCommand\s*\(/,
  /\.eval(Buffer)?\s*\(/,
  /\.evalsha(Buffer)?\s*\(/,
  /["']EVAL(SHA)?["']/,
];

function* productionSources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "test" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* productionSources(path);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith(".test.ts")) yield path;
  }
}

function otherRunners(): string[] {
  const found: string[] = [];
  for (const top of ["services", "packages"])
    for (const file of productionSources(join(ROOT, top))) {
      const name = relative(ROOT, file);
      if (name === THE_RUNNER) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (OTHER_RUNNER.some((pattern) => pattern.test(line))) found.push(`${name}:${index + 1}`);
        });
    }
  return found;
}

describe("running Lua on Redis", () => {
  it("goes through luaScript only, in every service and package", () => {
    expect(otherRunners()).toEqual([]);
  });

  it("would notice a defineCommand or an eval", () => {
    for (const line of [
      'redis.defineCommand("claim", { numberOfKeys: 1, lua })',
      "await this.#redis.eval(CREATE, 1, key)",
      "redis.evalsha(sha, 0)",
      'redis.callBuffer("EVAL", source, 0)',
    ])
      expect(
        OTHER_RUNNER.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(OTHER_RUNNER.some((pattern) => pattern.test("const value = evaluate(x)"))).toBe(false);
  });
});
