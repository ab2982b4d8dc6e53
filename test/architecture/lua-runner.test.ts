/**
 * Lua runs on Redis one way: service-kit's `luaScript` (EVALSHA, loading the script when Redis lost
 * it, traced). A second runner (ioredis' `defineCommand`, a bare `eval`) would skip the tracing and
 * the reload, and needs casts to type its commands; no production source may start one.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const THE_RUNNER = "packages/service-kit/src/lua-script.ts";
const OTHER_RUNNER = [
  /\bdefineCommand\s*\(/,
  /\.eval(Buffer)?\s*\(/,
  /\.evalsha(Buffer)?\s*\(/,
  /["']EVAL(SHA)?["']/,
];

function otherRunners(): string[] {
  return linesOutsideHome([THE_RUNNER], OTHER_RUNNER);
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
