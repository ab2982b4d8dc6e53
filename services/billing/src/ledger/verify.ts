/**
 * `ledger verify`: for every key, sums its journal and compares the sum with the stored balance, and
 * checks that each entry's balance_after is the previous one plus its delta (an unbroken chain).
 * Each key is read as of one atomic snapshot (balance + last journal id), so live traffic does not
 * produce false alarms.
 */
import type { verifyLedgerReplySchema } from "@rda/contracts";
import type { z } from "zod";
import type { LedgerContext } from "./context.ts";
import { snapshotScript } from "./scripts.ts";

export type VerifyReply = z.infer<typeof verifyLedgerReplySchema>;
type Mismatch = VerifyReply["mismatches"][number];

interface JournalTally {
  sum: number;
  entries: number;
  /** First entry whose balance_after does not follow from the previous one, if any. */
  brokenAt?: string;
}

const PAGE = 1_000;

export async function verifyLedger(context: LedgerContext): Promise<VerifyReply> {
  const report: VerifyReply = { ok: true, keys_checked: 0, journal_entries: 0, mismatches: [] };
  for (const keyId of await allKeyIds(context)) {
    const { entries, mismatch } = await verifyKey(context, keyId);
    report.keys_checked += 1;
    report.journal_entries += entries;
    if (mismatch) report.mismatches.push(mismatch);
  }
  report.ok = report.mismatches.length === 0;
  return report;
}

async function allKeyIds(context: LedgerContext): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await context.redis.sscan(context.keys.keyIds, cursor, "COUNT", PAGE);
    ids.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return [...new Set(ids)].sort();
}

async function verifyKey(context: LedgerContext, keyId: string) {
  const { keys, redis } = context;
  const snapshot = (await snapshotScript.run(redis, [keys.keyRecord(keyId), keys.journal(keyId)], [])) as [
    string,
    string,
  ];
  const [balanceText, lastId] = snapshot;
  const tally = await tallyJournal(context, keyId, lastId);
  const balance = Number(balanceText);
  const mismatch = describeMismatch(keyId, balanceText === "" ? Number.NaN : balance, tally);
  return { entries: tally.entries, mismatch };
}

function describeMismatch(keyId: string, balance: number, tally: JournalTally): Mismatch | undefined {
  const base = { key_id: keyId, balance: Number.isNaN(balance) ? 0 : balance, journal_sum: tally.sum };
  if (Number.isNaN(balance)) return { ...base, problem: "the key is listed but has no record" };
  if (tally.sum !== balance) return { ...base, problem: "the journal does not sum to the balance" };
  if (tally.brokenAt) return { ...base, problem: `balance_after chain broken at entry ${tally.brokenAt}` };
  return undefined;
}

/** Reads the journal in pages up to `lastId` (entries appended after the snapshot are left out). */
async function tallyJournal(context: LedgerContext, keyId: string, lastId: string): Promise<JournalTally> {
  const tally: JournalTally = { sum: 0, entries: 0 };
  if (lastId === "0-0") return tally;
  let start = "-";
  for (;;) {
    const page = await context.redis.xrange(context.keys.journal(keyId), start, lastId, "COUNT", PAGE);
    for (const [id, fields] of page) addEntry(tally, id, fields);
    if (page.length < PAGE) return tally;
    start = `(${page[page.length - 1]![0]}`;
  }
}

function addEntry(tally: JournalTally, id: string, fields: string[]): void {
  const entry = Object.fromEntries(pairs(fields));
  const delta = Number(entry.delta);
  const after = Number(entry.balance_after);
  tally.sum += delta;
  tally.entries += 1;
  if (tally.brokenAt === undefined && after !== tally.sum) tally.brokenAt = id;
}

function pairs(fields: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) result.push([fields[i]!, fields[i + 1]!]);
  return result;
}
