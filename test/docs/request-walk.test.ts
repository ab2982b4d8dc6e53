/**
 * docs/architecture.md walks `GET /v1/posts?subreddit=x` file by file, as the map for a first
 * reading. The map stays true and small: every file it names exists, it names at most 35, and
 * following it crosses between packages at most 14 times.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const HEADING = "### Reading one request: `GET /v1/posts?subreddit=x`";

/** The files of the walk's table, in order. */
function walkedFiles(markdown: string): string[] {
  const section = markdown.split(HEADING)[1]?.split(/^#{2,3} /m)[0] ?? "";
  return [...section.matchAll(/^\|\s*\d+\s*\|\s*`([^`]+)`/gm)].map((match) => match[1]!);
}

/** `services/gateway/src/http/envelope.ts` → `services/gateway`. */
const packageOf = (file: string) => file.split("/").slice(0, 2).join("/");

function crossings(files: readonly string[]): number {
  return files.filter((file, index) => index > 0 && packageOf(file) !== packageOf(files[index - 1]!)).length;
}

describe("the walk of one request in docs/architecture.md", () => {
  const files = walkedFiles(readFileSync(join(ROOT, "docs", "architecture.md"), "utf8"));

  it("names only files that exist, at most 35 of them", () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.length).toBeLessThanOrEqual(35);
    expect(files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it("crosses between packages at most 14 times", () => {
    expect(crossings(files)).toBeLessThanOrEqual(14);
    expect(crossings(["services/gateway/a.ts", "packages/contracts/b.ts", "services/gateway/c.ts"])).toBe(2);
  });
});
