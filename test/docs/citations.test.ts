/**
 * Comments cite only what a reader of the repository can open: its own files and docs. A spec's
 * section sign and number, or an issue number ("#66"), points at something the repository does not
 * hold, so no source file may carry one, in any case (markdown-links.test.ts checks the lower-case
 * form in every tracked file).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SOURCE_DIRS = ["services", "packages", "test", "scripts", "bench", "deploy"];
const SOURCE = /\.(ts|mts|mjs|js|eta|lua|sh|ya?ml|conf|acl)$/;
/** This file names what it looks for. */
const THIS_FILE = join(import.meta.dirname, "citations.test.ts");
const SKIPPED = new Set(["node_modules", "dist", "generated", "results", ".git"]);
/** A spec section ("Spec" and the section sign), and "#66" or "(#12)", but not an HTML entity (&#39;) nor a CSS colour. */
const STALE = [/spec\s*§/i, /(?<![&\w:])#\d+\b(?![0-9a-f;])/];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name) && path !== THIS_FILE) yield path;
  }
}

function staleCitations(): string[] {
  const found: string[] = [];
  for (const dir of SOURCE_DIRS)
    for (const file of sourceFiles(join(ROOT, dir))) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (STALE.some((pattern) => pattern.test(line)))
            found.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
        });
    }
  return found;
}

describe("source comments", () => {
  it("cite no spec section and no issue number", () => {
    expect(staleCitations()).toEqual([]);
  });

  it("would catch either kind", () => {
    expect(STALE.some((pattern) => pattern.test("// Spec §4 rule 3"))).toBe(true);
    expect(STALE.some((pattern) => pattern.test('/** "Slow down" (#12) */'))).toBe(true);
    expect(STALE.some((pattern) => pattern.test(`"'": "&#39;"`))).toBe(false);
    expect(STALE.some((pattern) => pattern.test(".note{color:#697386}"))).toBe(false);
  });
});
