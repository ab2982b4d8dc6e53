/**
 * Fakes of the exports worker's own interfaces (JobStore, PageSource, PageBilling), in memory, for
 * the unit tests of its money logic. The fake ledger keeps billing's rules: a work debit is taken
 * once per id and stays pending until settled, refunded or voided, each exactly once; a refund
 * billing does not answer is queued (the refund stream) and applied when billing is back.
 */
import { type DebitEnd, err, ok, type WorkDebitReply } from "@rda/contracts";
import type { JobRecord, JobStore } from "../../src/job-store.ts";
import type { PageBilling } from "../../src/page-billing.ts";
import type { PageResult, PageSource } from "../../src/page-source.ts";

type DebitState = "pending" | "settled" | "refunded" | "voided";

/** Thrown by a fake to stand for the worker's process dying at that step. */
export class Crash extends Error {}

export class FakeLedger implements PageBilling {
  balance: number;
  reachable = true;
  /** Billing answers every debit `revoked`, as it does once the key was revoked. */
  revoked = false;
  readonly debits = new Map<string, DebitState>();
  /** Refunds queued while billing was unreachable (the refund stream). */
  readonly queued: string[] = [];
  /** Crash right after billing took the debit, before the worker hears the answer. */
  crashAfterDebit = false;

  constructor(balance: number) {
    this.balance = balance;
  }

  async debit(_keyId: string, workId: string): Promise<WorkDebitReply | undefined> {
    if (!this.reachable) return undefined;
    if (this.revoked) return { outcome: "revoked" };
    const prior = this.debits.get(workId);
    if (prior === "pending" || prior === "settled")
      return { outcome: "already_debited", balance: this.balance };
    if (prior !== undefined) return { outcome: "already_ended", balance: this.balance };
    if (this.balance < 1)
      return { outcome: "insufficient", balance: this.balance, account_id: "acct_1", low_balance_round: 0 };
    this.balance -= 1;
    this.debits.set(workId, "pending");
    if (this.crashAfterDebit) {
      this.crashAfterDebit = false;
      throw new Crash("died after the debit");
    }
    return { outcome: "debited", balance: this.balance };
  }

  async settle(_keyId: string, workId: string) {
    if (!this.reachable) return err("deferred" as const);
    return ok(this.#end(workId, "settled"));
  }

  async refund(_keyId: string, workId: string) {
    if (!this.reachable) {
      this.queued.push(workId);
      return err("deferred" as const);
    }
    return ok(this.#end(workId, "refunded"));
  }

  /** Billing is back: the refund stream's messages are applied. */
  deliverQueued(): void {
    for (const id of this.queued.splice(0)) this.#end(id, "refunded");
  }

  /** Billing's voider: every pending debit's deadline passed. */
  voidAll(): void {
    for (const [id, state] of this.debits) if (state === "pending") this.#end(id, "voided");
  }

  count(state: DebitState): number {
    return [...this.debits.values()].filter((s) => s === state).length;
  }

  #end(workId: string, end: "settled" | "refunded" | "voided"): DebitEnd {
    const state = this.debits.get(workId);
    if (state === undefined) return "expired";
    if (state === "voided") return "voided";
    if (state !== "pending") return state === "settled" ? "already_settled" : "already_refunded";
    this.debits.set(workId, end);
    if (end !== "settled") this.balance += 1;
    return end;
  }
}

export class MemoryJobStore implements JobStore {
  readonly records = new Map<string, JobRecord>();
  /** Crash instead of the next update whose new record passes this test. */
  crashOnUpdate: ((next: JobRecord) => boolean) | undefined;

  async create(record: JobRecord) {
    this.records.set(record.id, structuredClone(record));
    return undefined;
  }
  async requestedBy() {
    return undefined;
  }
  async get(id: string) {
    const record = this.records.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }
  async update(id: string, change: (record: JobRecord) => JobRecord | undefined) {
    const current = this.records.get(id);
    if (current === undefined) return undefined;
    const next = change(structuredClone(current));
    if (next === undefined) return structuredClone(current);
    if (this.crashOnUpdate?.(next)) {
      this.crashOnUpdate = undefined;
      throw new Crash("died before the update");
    }
    next.version = current.version + 1;
    this.records.set(id, structuredClone(next));
    return next;
  }
  async activate() {
    return true;
  }
  async deactivate() {}
  async remember() {}
  async listForKey() {
    return [];
  }
  async scheduleExpiry() {}
  async dueForExpiry() {
    return [];
  }
  async forgetExpiry() {}
  async countQuote() {
    return 1;
  }
}

/** An upstream of `pages` pages of two rows each, one second apart; `failing` answers fail. */
export function fakeSource(pages: number): PageSource & { failing: number; asked: number } {
  const source = async (_kind: unknown, params: { after: number }): Promise<PageResult> => {
    source.asked += 1;
    if (source.failing > 0) {
      source.failing -= 1;
      return err({ reason: "upstream_unavailable", retryable: true });
    }
    const page = params.after;
    const rows = [0, 1].map((i) => ({ id: `r${page}_${i}`, created_utc: page * 10 + i + 1 }));
    return ok({ rows, cursor: page + 1, hasMore: page + 1 < pages });
  };
  source.failing = 0;
  source.asked = 0;
  return source as unknown as PageSource & { failing: number; asked: number };
}

export function runningJob(id: string, pages: number): JobRecord {
  return {
    version: 1,
    id,
    keyId: "key_0000000000000001",
    state: "queued",
    pausedBy: null,
    reason: null,
    query: { kind: "posts", subreddit: "typescript", after: 0, before: 1_000, format: "jsonl", gzip: false },
    quote: {
      estimated_rows: pages * 2,
      estimated_pages: pages,
      method: "test",
      ceiling_credits: pages + 5,
      eta_seconds: 1,
    },
    owner: "acct_1",
    run: 1,
    checkpoint: {
      pages: 0,
      rows: 0,
      cursor: 0,
      hasMore: true,
      seamIds: [],
      attempt: 0,
      inflightDebit: null,
      unsettledDebit: null,
      writers: [],
      credits: 0,
      failures: 0,
      firstCreated: null,
      lastCreated: null,
    },
    createdAt: new Date(0).toISOString(),
    finishedAt: null,
    expiresAt: null,
    manifest: null,
    file: null,
  };
}
