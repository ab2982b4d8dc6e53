/**
 * Every bad command line of `pnpm admin`, run as the root script runs it (`node scripts/admin.mjs`):
 * exit 2, nothing on stdout, and one sentence on stderr naming the problem and the help to read. No
 * billing serves the namespace, so a command that sent anything would end "billing is not running"
 * (exit 4) instead: exit 2 also proves that nothing was sent.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { testNamespace } from "@rda/service-kit/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { failureResult } from "../src/cli/failure-result.ts";

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL("../../..", import.meta.url));
const namespace = testNamespace("noargs");
const ID = "key_0123456789abcdef";

async function admin(args: string[]) {
  const options = { cwd: root, env: { ...process.env, RDA_NAMESPACE: namespace }, timeout: 60_000 };
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ["scripts/admin.mjs", ...args], options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** [command line, what the sentence must say] */
const BAD: [string[], RegExp][] = [
  [["keys", "create", "--qps", "1000000"], /--qps must be a whole number from 1 to 100,000, got '1000000'/],
  [["keys", "create", "--qps", "0"], /--qps must be a whole number from 1 to 100,000/],
  [["keys", "create", "--burst", "1000001"], /--burst must be a whole number from 1 to 1,000,000/],
  [["keys", "create", "--credits", "1000000001"], /--credits must be a whole number from 0 to 1,000,000,000/],
  [["keys", "create", "--credits", "-5"], /--credits/],
  [["keys", "create", "--credits", "lots"], /--credits must be a whole number/],
  [["keys", "create", "--label", "x".repeat(201)], /--label must be at most 200 characters, got 201/],
  [["keys", "create", "--label"], /--label needs a value/],
  [
    ["keys", "create", "--label", "invoice\u202Etxt.exe"],
    /--label: a label may not contain invisible direction controls/,
  ],
  [["keys", "create", "--bogus", "1"], /'keys create' has no option --bogus/],
  [["keys", "create", "surplus"], /unexpected argument 'surplus'/],
  [["keys", "create", "--json=yes"], /--json takes no value/],
  [["keys", "show"], /'keys show' needs a key id/],
  [["keys", "show", "not-a-key"], /'not-a-key' is not a key id/],
  [["keys", "show", ID, ID], /unexpected argument/],
  [["keys", "revoke", "key_SHOUTING0000000"], /is not a key id/],
  [["keys", "rotate", "--usd", "5", ID], /'keys rotate' has no option --usd/],
  [["keys", "topup", ID], /'keys topup' needs --usd AMOUNT/],
  [["keys", "topup", ID, "--usd", "99999999999"], /the maximum top-up is 10,000.00 USD, got 99999999999/],
  [["keys", "topup", ID, "--usd", "10000.01"], /the maximum top-up is 10,000.00 USD/],
  [["keys", "topup", ID, "--usd", "4.99"], /the minimum top-up is 5.00 USD, got 4.99/],
  [["keys", "topup", ID, "--usd", "12.345"], /--usd must be an amount with at most two decimals/],
  [
    ["keys", "topup", ID, "--usd", "ten"],
    /--usd must be an amount of US dollars like 25 or 12.50, got 'ten'/,
  ],
  [["keys", "usage", ID, "--days", "0"], /--days must be a whole number from 1 to 400/],
  [["keys", "usage", ID, "--days", "401"], /--days must be a whole number from 1 to 400/],
  [["keys", "list"], /'keys list' needs --account ID or --label TEXT/],
  [["keys", "cap", ID], /'keys cap' needs --monthly N \(credits a month\) or --monthly none/],
  [
    ["keys", "cap", ID, "--monthly", "0"],
    /--monthly must be a whole number from 1 to 1,000,000,000, got '0', or none/,
  ],
  [["keys", "cap", ID, "--monthly", "lots"], /--monthly must be a whole number/],
  [["keys", "cap", "--monthly", "5"], /'keys cap' needs a key id/],
  [["keys", "list", "--account", "acct_1", "--label", "x"], /needs --account ID or --label TEXT/],
  [["keys", "list", "--account", "someone"], /'someone' is not an account id/],
  [["ledger", "verify", "--days", "3"], /'ledger verify' has no option --days/],
  [["keys", "frobnicate"], /there is no command 'keys frobnicate'/],
  [["keys"], /there is no command 'keys'/],
];

describe("pnpm admin's argument checks", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    // The first run builds the CLI to JavaScript when its build is older than its sources.
    expect((await admin(["--help"])).code).toBe(0);
  }, 120_000);

  it("refuse every bad argument with exit 2 and one sentence, before anything is sent", async () => {
    const runs = await Promise.all(BAD.map(([args]) => admin(args)));
    for (const [index, [args, says]] of BAD.entries()) {
      const run = runs[index]!;
      const what = `admin ${args.join(" ")}`;
      expect({ code: run.code, stdout: run.stdout }, what).toEqual({ code: 2, stdout: "" });
      expect(run.stderr, what).toMatch(/^admin: [^\n]+ \(see pnpm admin [a-z ]*--help\)\n$/);
      expect(run.stderr, what).toMatch(says);
    }
  });

  it("show each command's own options and bounds with --help", async () => {
    const [create, topUp, general] = await Promise.all([
      admin(["keys", "create", "--help"]),
      admin(["keys", "topup", "--help"]),
      admin(["--help"]),
    ]);
    expect(create).toMatchObject({ code: 0, stderr: "" });
    expect(create.stdout).toMatch(/^Usage: pnpm admin keys create /);
    expect(create.stdout).toContain("--qps N");
    expect(create.stdout).toContain("1 to 100,000");
    expect(topUp.stdout).toContain("from 5.00 to 10,000.00");
    expect(general.stdout).toContain("keys topup ID --usd AMOUNT");
  });

  it("send a valid command on to billing (here: none is running, so exit 4)", async () => {
    const run = await admin(["keys", "show", ID]);
    expect(run).toMatchObject({ code: 4, stdout: "" });
    expect(run.stderr).toContain("billing is not running");
  });
});

describe("a refusal by billing itself", () => {
  it("is reported as billing's refusal with exit 2, not as billing being unreachable", () => {
    const failure = { kind: "service_error", code: 400, message: "invalid request: label: Too big" } as const;
    expect(failureResult(failure)).toEqual({
      exitCode: 2,
      error: "billing refused the request: invalid request: label: Too big",
    });
    const down = {
      kind: "service_error",
      code: 503,
      message: "billing cannot reach its ledger store",
    } as const;
    expect(failureResult(down).exitCode).toBe(4);
  });
});
