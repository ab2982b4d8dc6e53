/**
 * Waits in tests (CONTRIBUTING.md#where-a-test-goes: no test relies on timing luck).
 *
 * A wait is never allowed longer than the test itself. A `waitFor(check, what, 60_000)` inside a
 * test that vitest stops at 30 s reports "Test timed out" instead of what it waited for, and on a
 * loaded machine fails a run the wait was written to tolerate. Each test whose waits may run that
 * long says so with its own timeout.
 *
 * And a test does not sleep. A sleep that waits for something to happen (`sleep(200)`: "every
 * caller is waiting by now") is luck on a busy machine; one that waits to see nothing happen
 * proves nothing once the machine is slower than the sleep. A test waits on the condition
 * (`waitFor`), or, to show that something did not happen, on a later signal that must come after
 * it. A sleep is a promise a timer resolves (`new Promise((r) => setTimeout(r, ms))`, a helper
 * made of one, `node:timers/promises`), in any file of a test folder; the few that stay are in
 * KEPT_SLEEPS, each with why.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/**
 * The sleeps that stay, one entry per sleep (a second one in the same file fails too), each saying
 * why no signal can take its place.
 */
const KEPT_SLEEPS: ReadonlyArray<readonly [file: string, why: string]> = [
  [
    "packages/service-kit/test/background-kit.integration.test.ts",
    "lets a lease's own time pass between renewals: that renewing keeps it past its time is what it tests",
  ],
  [
    "packages/service-kit/test/consumer-loop.integration.test.ts",
    "a handler that works three ack waits long: that its message is not handed elsewhere meanwhile is what it tests",
  ],
  [
    "services/gateway/test/gateway.limits.test.ts",
    "waits the Retry-After the gateway advertised: that a token is there then is what it tests",
  ],
  [
    "services/gateway/test/gateway.limits.test.ts",
    "spaces attempts over a window whose admitted count is measured against the refill rate",
  ],
  [
    "test/e2e/mcp-oauth.hardening.test.ts",
    "a connection the OAuth library might open later to a client-supplied URL sends no signal that it never will",
  ],
  [
    "test/e2e/request-walk.test.ts",
    "the same stretch of time without a request is the measurement: what runs on its own then",
  ],
  ["test/e2e/upstream-budget.fair.test.ts", "paces the victim's traffic to a rate the test is about"],
  ["test/e2e/upstream-budget.fair.test.ts", "paces the attacker's searches to a rate the test is about"],
  ["test/e2e/upstream-budget.fair.test.ts", "paces the attacker's flood to a rate the test is about"],
  ["test/e2e/upstream-budget.strict.test.ts", "waits after a 429 as a polite client does, within its run"],
  ["test/support/http.ts", "waits the Retry-After the API named before asking again, as a client does"],
  ["test/support/stack.ts", "bounds one part's stop: the race ends as soon as the part has stopped"],
];

/** The files of the test folders (support code too): where a sleep would be a test's. */
function* testFolderFiles(): Generator<string> {
  const folders = [join(ROOT, "test"), join(ROOT, "deploy", "test")];
  for (const top of ["services", "packages"])
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true }))
      if (entry.isDirectory()) folders.push(join(ROOT, top, entry.name, "test"));
  for (const folder of folders) if (existsSync(folder)) yield* sourceFiles(folder);
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** `new Promise((resolve) => …setTimeout(resolve, ms)…)`: a promise a timer resolves. */
function isTimerPromise(node: ts.Node): node is ts.NewExpression {
  if (!ts.isNewExpression(node) || node.expression.getText() !== "Promise") return false;
  const executor = node.arguments?.[0];
  if (!executor || !(ts.isArrowFunction(executor) || ts.isFunctionExpression(executor))) return false;
  const resolve = executor.parameters[0]?.name;
  if (!resolve || !ts.isIdentifier(resolve)) return false;
  let resolvedByTimer = false;
  const look = (inner: ts.Node) => {
    if (ts.isCallExpression(inner) && inner.expression.getText() === "setTimeout") {
      const callback = inner.arguments[0];
      if (callback && (callback.getText() === resolve.text || callsName(callback, resolve.text)))
        resolvedByTimer = true;
    }
    ts.forEachChild(inner, look);
  };
  look(executor);
  return resolvedByTimer;
}

function callsName(node: ts.Node, name: string): boolean {
  if (ts.isCallExpression(node) && node.expression.getText() === name) return true;
  return ts.forEachChild(node, (child) => callsName(child, name) || undefined) ?? false;
}

/**
 * The helper a timer promise is the whole of (`const sleep = (ms) => new Promise(…)`), with whether
 * other files may call it; undefined when the promise is written in place.
 */
function sleepHelper(promise: ts.NewExpression): { name: string; exported: boolean } | undefined {
  const body = ts.isReturnStatement(promise.parent) ? promise.parent.parent : promise;
  const fn = body.parent;
  if (!(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn) || ts.isFunctionDeclaration(fn))) return;
  if (fn.body !== body || (ts.isBlock(body) && body.statements.length !== 1)) return;
  const declaration = ts.isFunctionDeclaration(fn) ? fn : fn.parent;
  if (!ts.isFunctionDeclaration(declaration) && !ts.isVariableDeclaration(declaration)) return;
  if (declaration.name === undefined || !ts.isIdentifier(declaration.name)) return;
  // `export const sleep = …`: the modifier sits on the statement around the declaration list.
  const statement = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
  const exported =
    ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  return { name: declaration.name.text, exported };
}

/** Each sleep in a file, as `file:line`: a timer promise, a call of a sleep helper, a promise timer. */
function sleepsIn(file: string, text = readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const at = (node: ts.Node) =>
    `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const found: string[] = [];
  const helpers = new Set<string>();
  const findTimers = (node: ts.Node) => {
    if (
      ts.isImportDeclaration(node) &&
      /^["'](node:)?timers\/promises["']$/.test(node.moduleSpecifier.getText())
    )
      found.push(at(node));
    if (isTimerPromise(node)) {
      const helper = sleepHelper(node);
      // A helper's sleeps are its calls here; one other files may call is a sleep where it is made.
      if (helper === undefined || helper.exported) found.push(at(node));
      else helpers.add(helper.name);
    }
    ts.forEachChild(node, findTimers);
  };
  findTimers(source);
  const findCalls = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && helpers.has(node.expression.text))
      found.push(at(node));
    ts.forEachChild(node, findCalls);
  };
  findCalls(source);
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

  it("wait on a condition or a signal, not a sleep, but for the few kept with a reason", () => {
    const sleeps = [...testFolderFiles()].flatMap((file) => sleepsIn(file));
    const fileOf = (found: string) => found.replace(/:\d+$/, "");
    expect(sleeps.map(fileOf).sort(), sleeps.join("\n")).toEqual(KEPT_SLEEPS.map(([file]) => file).sort());
  });

  it("would notice a sleep however it is written, and no timer that bounds or schedules", () => {
    const count = (text: string) => sleepsIn(join(ROOT, "example.test.ts"), text).length;
    expect(count("await new Promise((resolve) => setTimeout(resolve, 200));")).toBe(1);
    expect(count('await Promise.race([done, new Promise((r) => setTimeout(() => r("silent"), 300))]);')).toBe(
      1,
    );
    expect(
      count(
        "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nawait sleep(5);\nawait sleep(6);",
      ),
    ).toBe(2);
    expect(
      count(
        "function pause(ms: number) {\n  return new Promise((resolve) => {\n    setTimeout(() => resolve(1), ms);\n  });\n}\nawait pause(1);",
      ),
    ).toBe(1);
    expect(count("export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));")).toBe(1);
    expect(count('import { setTimeout as wait } from "node:timers/promises";')).toBe(1);
    for (const kept of [
      'await new Promise((resolve, reject) => { setTimeout(() => reject(new Error("late")), 100); child.once("exit", resolve); });',
      "setTimeout(() => turn.finish(), 30);",
      'await waitFor(() => done, "the work done");',
    ])
      expect(count(kept), kept).toBe(0);
  });
});
