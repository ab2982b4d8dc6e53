/**
 * `ledger verify`: for every key, sums its journal and compares the sum with the stored balance,
 * checks that each entry's balance_after is the previous one plus its delta (an unbroken chain), and
 * re-derives each month's spend (the counter the monthly cap is checked against) from the journal:
 * a debit adds its credits to the month it was taken in, its refund takes them off that same month
 * (as the refund script does). Each key is read as of one atomic snapshot (balance,
 * last journal id, the spend counters), so live traffic does not produce false alarms.
 */
import { calendarMonthOf, type verifyLedgerReplySchema } from "@rda/contracts";
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
  /** Credits spent per month (YYYY-MM), as the journal's debits and refunds say. */
  spend: Map<string, number>;
  /** The month each debit was taken in, by its request (or page) id: where its refund goes. */
  debitMonths: Map<string, string>;
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
  const snapshot = (await snapshotScript.run(
    redis,
    [keys.keyRecord(keyId), keys.journal(keyId), keys.monthlySpend(keyId)],
    [],
  )) as string[];
  const [balanceText = "", lastId = "0-0", ...spendFields] = snapshot;
  const tally = await tallyJournal(context, keyId, lastId);
  const balance = Number(balanceText);
  const stored = new Map(pairs(spendFields).map(([month, spent]) => [month, Number(spent)]));
  const mismatch =
    describeMismatch(keyId, balanceText === "" ? Number.NaN : balance, tally) ??
    spendMismatch(keyId, balance, tally, stored);
  return { entries: tally.entries, mismatch };
}

function describeMismatch(keyId: string, balance: number, tally: JournalTally): Mismatch | undefined {
  const base = { key_id: keyId, balance: Number.isNaN(balance) ? 0 : balance, journal_sum: tally.sum };
  if (Number.isNaN(balance)) return { ...base, problem: "the key is listed but has no record" };
  if (tally.sum !== balance) return { ...base, problem: "the journal does not sum to the balance" };
  if (tally.brokenAt) return { ...base, problem: `balance_after chain broken at entry ${tally.brokenAt}` };
  return undefined;
}

/** The first month whose stored spend differs from the journal's, oldest first. */
function spendMismatch(
  keyId: string,
  balance: number,
  tally: JournalTally,
  stored: Map<string, number>,
): Mismatch | undefined {
  const months = [...new Set([...stored.keys(), ...tally.spend.keys()])].sort();
  for (const month of months) {
    const counted = stored.get(month) ?? 0;
    const derived = tally.spend.get(month) ?? 0;
    if (counted !== derived)
      return {
        key_id: keyId,
        balance,
        journal_sum: tally.sum,
        problem: `the monthly spend of ${month} is ${counted}, the journal says ${derived}`,
      };
  }
  return undefined;
}

/** Reads the journal in pages up to `lastId` (entries appended after the snapshot are left out). */
async function tallyJournal(context: LedgerContext, keyId: string, lastId: string): Promise<JournalTally> {
  const tally: JournalTally = { sum: 0, entries: 0, spend: new Map(), debitMonths: new Map() };
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
  countSpend(tally, entry);
}

function countSpend(tally: JournalTally, entry: Record<string, string | undefined>): void {
  const requestId = entry.request_id ?? "";
  if (entry.type === "debit") {
    const month = calendarMonthOf(Number(entry.at));
    tally.debitMonths.set(requestId, month);
    tally.spend.set(month, (tally.spend.get(month) ?? 0) - Number(entry.delta));
  } else if (entry.type === "refund") {
    const month = tally.debitMonths.get(requestId);
    if (month === undefined) return;
    tally.spend.set(month, (tally.spend.get(month) ?? 0) - Number(entry.delta));
  }
}

function pairs(fields: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) result.push([fields[i]!, fields[i + 1]!]);
  return result;
}
