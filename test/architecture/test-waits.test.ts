/**
 * A wait in a test is never allowed longer than the test itself. A `waitFor(check, what, 60_000)`
 * inside a test that vitest stops at 30 s reports "Test timed out" instead of what it waited for,
 * and on a loaded machine fails a run the wait was written to tolerate. Each test whose waits
 * may run that long says so with its own timeout.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP_DIRS = new Set(["node_modules", "dist", ".git"]);
const DEFAULT_TEST_MS = config.test?.testTimeout ?? 5_000;
const DEFAULT_HOOK_MS = config.test?.hookTimeout ?? 10_000;
const TESTS = new Set(["it", "test"]);
const HOOKS = new Set(["beforeAll", "beforeEach", "afterAll", "afterEach"]);

function* testFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith(".test.ts")) yield path;
  }
}

/** A literal number of milliseconds (`60_000`, `2 * 60_000`), or undefined when it is computed. */
function literalMs(node: ts.Node | undefined): number | undefined {
  if (node === undefined) return undefined;
  if (ts.isNumericLiteral(node)) return Number(node.text.replaceAll("_", ""));
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    const left = literalMs(node.left);
    const right = literalMs(node.right);
    return left === undefined || right === undefined ? undefined : left * right;
  }
  if (ts.isParenthesizedExpression(node)) return literalMs(node.expression);
  return undefined;
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  // `it.skip(...)`, `it.concurrent(...)`: the test function's own name.
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression))
    return callee.expression.text;
  return undefined;
}

/** The waits longer than the test or hook that holds them, as `file:line`. */
function overlongWaits(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, limitMs: number | undefined) => {
    let limit = limitMs;
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      if (name !== undefined && TESTS.has(name) && node.arguments.length >= 2)
        limit =
          literalMs(node.arguments[2]) ?? (node.arguments[2] === undefined ? DEFAULT_TEST_MS : Infinity);
      else if (name !== undefined && HOOKS.has(name))
        limit =
          literalMs(node.arguments[1]) ?? (node.arguments[1] === undefined ? DEFAULT_HOOK_MS : Infinity);
      else if (name === "waitFor" && limit !== undefined) {
        const waitMs = literalMs(node.arguments[2]);
        if (waitMs !== undefined && waitMs >= limit) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${relative(ROOT, file)}:${line + 1} waits ${waitMs} ms in a ${limit} ms test`);
        }
      }
    }
    ts.forEachChild(node, (child) => visit(child, limit));
  };
  visit(source, undefined);
  return found;
}

describe("waits in tests", () => {
  it("are each shorter than the test or hook they run in", () => {
    const files = ["test", "services", "packages", "deploy"].flatMap((top) => [
      ...testFiles(join(ROOT, top)),
    ]);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(overlongWaits)).toEqual([]);
  });
});
