/** Human-readable output of the CLI, and the one place that writes to stdout and stderr. */
import type { KeyDetails, verifyLedgerReplySchema } from "@rda/contracts";
import type { z } from "zod";
import type { CommandResult } from "./exit-codes.ts";

export function describeKey(key: KeyDetails): string {
  return [
    `id:          ${key.id}`,
    `label:       ${key.label || "(none)"}`,
    `balance:     ${key.credits_balance} credits`,
    `revoked:     ${key.revoked ? "yes" : "no"}`,
    `rate limit:  ${key.rate_limit.qps} req/s, burst ${key.rate_limit.burst}`,
    `created at:  ${key.created_at}`,
  ].join("\n");
}

export function describeVerify(report: z.infer<typeof verifyLedgerReplySchema>): string {
  const head = `${report.keys_checked} keys, ${report.journal_entries} journal entries: ${
    report.ok ? "every balance agrees with its journal" : `${report.mismatches.length} mismatch(es)`
  }`;
  const lines = report.mismatches.map(
    (m) =>
      `  ${m.key_id}: balance ${m.balance}, journal sum ${m.journal_sum}${m.problem ? ` (${m.problem})` : ""}`,
  );
  return [head, ...lines].join("\n");
}

/** `--json`: exactly one JSON object on stdout (or nothing on failure); errors always go to stderr. */
export function printResult(result: CommandResult, json: boolean): void {
  if (json && result.json !== undefined) process.stdout.write(`${JSON.stringify(result.json)}\n`);
  if (!json && result.text !== undefined) process.stdout.write(`${result.text}\n`);
  if (result.error !== undefined) process.stderr.write(`admin: ${result.error}\n`);
}
