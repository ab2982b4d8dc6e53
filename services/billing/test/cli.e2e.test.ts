import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createKeyReplySchema, keyDetailsSchema, verifyLedgerReplySchema } from "@rda/contracts";
import { testNamespace } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Harness, startHarness } from "./harness.ts";

const execFileAsync = promisify(execFile);
/** Each call starts pnpm and node: about a second when idle, several on a loaded machine. */
const CLI_TEST_TIMEOUT_MS = 120_000;
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `pnpm admin ...` as an operator runs it (`-s` keeps pnpm's own banner off stdout). The error cases
 * run the same entry point with node directly, which skips pnpm's start-up on a busy machine.
 */
function admin(namespace: string, ...args: string[]): Promise<Run> {
  return spawnCli("pnpm", ["-s", "admin", ...args], namespace);
}

function adminDirect(namespace: string, ...args: string[]): Promise<Run> {
  return spawnCli("node", ["--import", "tsx", "services/billing/src/cli/main.ts", ...args], namespace);
}

async function spawnCli(command: string, args: string[], namespace: string): Promise<Run> {
  const options = { cwd: repositoryRoot, env: { ...process.env, RDA_NAMESPACE: namespace }, timeout: 60_000 };
  try {
    const { stdout, stderr } = await execFileAsync(command, args, options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `--json` must print exactly one JSON object on stdout, nothing else. */
function onlyJson<T>(run: Run, schema: z.ZodType<T>): T {
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  return schema.parse(JSON.parse(run.stdout));
}

describe("pnpm admin", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("cli");
  });
  afterAll(() => h.close());

  it("creates, shows, tops up, revokes and verifies a key, with one JSON object per --json call", async () => {
    const created = onlyJson(
      await admin(h.namespace, "keys", "create", "--credits", "7", "--qps", "3", "--label", "ops", "--json"),
      createKeyReplySchema,
    );
    expect(created.credits).toBe(7);
    const shown = onlyJson(await admin(h.namespace, "keys", "show", created.id, "--json"), keyDetailsSchema);
    expect(shown).toMatchObject({ id: created.id, label: "ops", credits_balance: 7, revoked: false });
    expect(shown.rate_limit).toEqual({ qps: 3, burst: 10 });
    const topUp = await admin(h.namespace, "keys", "topup", created.id, "--usd", "25", "--json");
    const added = z.object({ credits_added: z.number(), credits_balance: z.number() });
    expect(onlyJson(topUp, added)).toEqual({ credits_added: 19_230, credits_balance: 19_237 });
    const revoked = await admin(h.namespace, "keys", "revoke", created.id);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${created.id}\n` });
    const report = onlyJson(await admin(h.namespace, "ledger", "verify", "--json"), verifyLedgerReplySchema);
    expect(report).toMatchObject({ ok: true, keys_checked: 1, journal_entries: 2, mismatches: [] });
  });

  it("exits 3 for an unknown key id, 2 for a bad or too small amount, 2 for a usage error", async () => {
    const [unknown, malformed, belowMinimum, usage] = await Promise.all([
      admin(h.namespace, "keys", "show", "key_0000000000000000", "--json"),
      admin(h.namespace, "keys", "topup", "key_0000000000000000", "--usd", "12.345"),
      admin(
        h.namespace,
        "keys",
        "topup",
        (await h.request(h.subjects.billing.createKey, {}, createKeyReplySchema)).id,
        "--usd",
        "4.99",
      ),
      admin(h.namespace, "keys", "create", "--credits", "lots"),
    ]);
    expect(unknown).toMatchObject({ code: 3, stdout: "" });
    expect(unknown.stderr).toContain("no key with id 'key_0000000000000000'");
    expect(malformed).toMatchObject({ code: 2, stdout: "" });
    expect(malformed.stderr).toContain("--usd must be an amount");
    expect(belowMinimum).toMatchObject({ code: 2, stdout: "" });
    expect(belowMinimum.stderr).toContain("the minimum top-up is 5.00 USD");
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toContain("--credits must be a whole number");
  });

  it("exits 4 with a hint to start the stack when billing is not running", async () => {
    const run = await admin(testNamespace("nobilling"), "ledger", "verify", "--json");
    expect(run).toMatchObject({ code: 4, stdout: "" });
    expect(run.stderr).toContain("billing is not running; start the stack with pnpm start");
  });

  it("prints the usage with exit 0 for --help", async () => {
    const run = await adminDirect(h.namespace, "--help");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("keys topup ID --usd AMOUNT");
  });
});
