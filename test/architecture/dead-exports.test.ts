/**
 * No dead exports: a name a service or package exports that no other file uses (a package's own
 * `index.ts` re-exporting it does not count) is code nobody runs, or a second copy of something
 * that lives elsewhere. The published SDK is left out: its exports are its public API.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP_DIRS = new Set(["node_modules", "dist", "generated", "_generated", ".git"]);

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.m?ts$/.test(entry.name)) yield relative(ROOT, path);
  }
}

const DECLARED =
  /^export (?:async )?(?:function\*?|const|let|class|abstract class|type|interface|enum) (\w+)/gm;
const REEXPORTS = /^packages\/[^/]+\/src\/(testing\/)?index\.ts$/;

function deadExports(): string[] {
  const files = [
    ...["services", "packages", "test", "scripts", "deploy", "bench"].flatMap((top) => [
      ...sources(join(ROOT, top)),
    ]),
    ...readdirSync(ROOT).filter((name) => name.endsWith(".ts")),
  ];
  const text = new Map(files.map((file) => [file, readFileSync(join(ROOT, file), "utf8")]));
  const filesWithWord = new Map<string, Set<string>>();
  for (const [file, body] of text)
    for (const word of new Set(body.match(/\b\w+\b/g) ?? [])) {
      const holders = filesWithWord.get(word) ?? new Set<string>();
      filesWithWord.set(word, holders);
      holders.add(file);
    }
  const dead: string[] = [];
  for (const [file, body] of text) {
    if (!/^(services|packages)\/[^/]+\/src\//.test(file) || file.startsWith("packages/sdk/")) continue;
    for (const [, name] of body.matchAll(DECLARED)) {
      if (name === undefined) continue;
      const users = [...(filesWithWord.get(name) ?? [])].filter(
        (user) => user !== file && !REEXPORTS.test(user),
      );
      const usesHere = body.match(new RegExp(`\\b${name}\\b`, "g"))?.length ?? 0;
      if (users.length === 0 && usesHere <= 1) dead.push(`${file}: ${name}`);
    }
  }
  return dead.sort();
}

describe("exports", () => {
  it("are each used somewhere besides their own file", () => {
    expect(deadExports()).toEqual([]);
  });
});
