import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  createdKeySchema,
  keyDetailsSchema,
  keyUsageReplySchema,
  listKeysReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import { hashApiKey } from "@rda/service-kit";
import { testNamespace } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Harness, startHarness } from "./harness.ts";

const execFileAsync = promisify(execFile);
/** Each call starts node (and pnpm for the first): well under a second when idle, more on a loaded machine. */
const CLI_TEST_TIMEOUT_MS = 120_000;
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `pnpm admin ...` exactly as an operator runs it (the repo's .npmrc keeps pnpm's banner off stdout). Later calls run
 * the same entry point (the root script is `node scripts/admin.mjs`, the CLI built to JavaScript) with node directly,
 * which skips pnpm's own start-up and keeps the suite fast on a busy machine.
 */
function admin(namespace: string, ...args: string[]): Promise<Run> {
  return spawnCli("pnpm", ["admin", ...args], namespace);
}

function adminDirect(namespace: string, ...args: string[]): Promise<Run> {
  return spawnCli(process.execPath, ["scripts/admin.mjs", ...args], namespace);
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
      createdKeySchema.strict(),
    );
    expect(created.credits).toBe(7);
    const shown = onlyJson(
      await adminDirect(h.namespace, "keys", "show", created.id, "--json"),
      keyDetailsSchema,
    );
    expect(shown).toMatchObject({ id: created.id, label: "ops", credits_balance: 7, revoked: false });
    expect(shown.rate_limit).toEqual({ qps: 3, burst: 10 });
    const topUp = await adminDirect(h.namespace, "keys", "topup", created.id, "--usd", "25", "--json");
    const added = z.object({ credits_added: z.number(), credits_balance: z.number() });
    expect(onlyJson(topUp, added)).toEqual({ credits_added: 19_230, credits_balance: 19_237 });
    const revoked = await adminDirect(h.namespace, "keys", "revoke", created.id);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${created.id}\n` });
    const report = onlyJson(
      await adminDirect(h.namespace, "ledger", "verify", "--json"),
      verifyLedgerReplySchema,
    );
    expect(report).toMatchObject({ ok: true, keys_checked: 1, journal_entries: 2, mismatches: [] });
  });

  it("exits 3 for an unknown id, 2 for a bad or too small amount or bad usage, 4 when billing is not running", async () => {
    const { id } = await h.request(h.subjects.billing.createKey, {}, createdKeySchema);
    const [unknown, malformed, belowMinimum, usage, notRunning, help] = await Promise.all([
      adminDirect(h.namespace, "keys", "show", "key_0000000000000000", "--json"),
      adminDirect(h.namespace, "keys", "topup", "key_0000000000000000", "--usd", "12.345"),
      adminDirect(h.namespace, "keys", "topup", id, "--usd", "4.99"),
      adminDirect(h.namespace, "keys", "create", "--credits", "lots"),
      adminDirect(testNamespace("nobilling"), "ledger", "verify", "--json"),
      adminDirect(h.namespace, "--help"),
    ]);
    expect(unknown).toMatchObject({ code: 3, stdout: "" });
    expect(unknown.stderr).toContain("no key with id 'key_0000000000000000'");
    expect(malformed).toMatchObject({ code: 2, stdout: "" });
    expect(malformed.stderr).toContain("--usd must be an amount");
    expect(belowMinimum).toMatchObject({ code: 2, stdout: "" });
    expect(belowMinimum.stderr).toContain("the minimum top-up is 5.00 USD");
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toContain("--credits must be a whole number");
    expect(notRunning).toMatchObject({ code: 4, stdout: "" });
    expect(notRunning.stderr).toContain("billing is not running; start the stack with pnpm start");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("keys topup ID --usd AMOUNT");
  });

  it("lists keys by label, shows a key's usage by day, and rotates a key's secret", async () => {
    const label = `cli-${testNamespace("label")}`;
    const key = await h.request(h.subjects.billing.createKey, { label, credits: 5 }, createdKeySchema);
    const request = {
      key_id: key.id,
      key_hash: hashApiKey(key.key),
      request_id: "cli-usage-1",
      operation: "listPosts",
      credits: 1,
      pending_ms: 60_000,
    };
    await h.request(h.subjects.billing.admit, request, z.unknown());
    const [listed, usage, rotated, badDays, noFilter] = await Promise.all([
      adminDirect(h.namespace, "keys", "list", "--label", label, "--json"),
      adminDirect(h.namespace, "keys", "usage", key.id, "--days", "2", "--json"),
      adminDirect(h.namespace, "keys", "rotate", key.id, "--json"),
      adminDirect(h.namespace, "keys", "usage", key.id, "--days", "0"),
      adminDirect(h.namespace, "keys", "list"),
    ]);
    expect(onlyJson(listed, listKeysReplySchema).keys).toMatchObject([
      { id: key.id, label, credits_balance: 4 },
    ]);
    const days = onlyJson(usage, z.object({ id: z.string(), days: z.array(z.unknown()) })).days;
    expect(days).toHaveLength(2);
    expect(keyUsageReplySchema.parse({ found: true, days }).found).toBe(true);
    expect(days.at(-1)).toMatchObject({ charged: { listPosts: 1 }, credits_granted: 5 });
    const fresh = onlyJson(rotated, z.object({ id: z.literal(key.id), key: z.string().startsWith("rdk_") }));
    expect(fresh.key).not.toBe(key.key);
    expect(badDays).toMatchObject({ code: 2, stdout: "" });
    expect(badDays.stderr).toContain("--days must be a whole number from 1 to 400");
    expect(noFilter).toMatchObject({ code: 2 });
    expect(noFilter.stderr).toContain("'keys list' needs --account ID or --label TEXT");
  });

  it("sets a key's monthly spend cap, shows the month's spend against it, and removes it", async () => {
    const key = await h.request(h.subjects.billing.createKey, { credits: 5 }, createdKeySchema);
    const spend = z.object({
      id: z.literal(key.id),
      month_spend: z.object({ month: z.string(), spent: z.number(), cap: z.number().nullable() }),
    });
    const capped = onlyJson(
      await adminDirect(h.namespace, "keys", "cap", key.id, "--monthly", "3", "--json"),
      spend,
    );
    expect(capped.month_spend).toMatchObject({ spent: 0, cap: 3 });
    const shown = await adminDirect(h.namespace, "keys", "show", key.id);
    expect(shown.stdout).toMatch(/spend: +0 of 3 credits in \d{4}-\d{2} \(the monthly cap resets /);
    const removed = await adminDirect(h.namespace, "keys", "cap", key.id, "--monthly", "none");
    expect(removed).toMatchObject({ code: 0 });
    expect(removed.stdout).toMatch(new RegExp(`^${key.id}: 0 credits in \\d{4}-\\d{2}, no monthly cap\n$`));
    const unknown = await adminDirect(h.namespace, "keys", "cap", "key_0000000000000000", "--monthly", "3");
    expect(unknown).toMatchObject({ code: 3, stdout: "" });
  });
});
