/**
 * The architecture tests' one source scan: every line of the services' and packages' production
 * TypeScript (tests, `dist` and `node_modules` left out) that matches a pattern, outside the files
 * that are the mechanism's one home, as `path:line`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

function* productionSources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "test" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* productionSources(path);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith(".test.ts")) yield path;
  }
}

export function linesOutsideHome(home: readonly string[], patterns: readonly RegExp[]): string[] {
  const found: string[] = [];
  for (const top of ["services", "packages"])
    for (const file of productionSources(join(ROOT, top))) {
      const name = relative(ROOT, file);
      if (home.includes(name)) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (patterns.some((pattern) => pattern.test(line))) found.push(`${name}:${index + 1}`);
        });
    }
  return found;
}
