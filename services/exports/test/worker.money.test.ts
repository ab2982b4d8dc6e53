/**
 * The exports worker's money, without servers: every page is a work debit taken before it is asked,
 * settled once written, refunded when it failed or the job ended first. A crash between any two steps,
 * then a resume, charges each written page exactly once and leaves no debit pending; a page whose
 * debit billing voided while its worker stalled is free, and the job's credits say so.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@rda/service-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { filesystemStore, type ObjectStore } from "../src/object-store.ts";
import { type JobRunDeps, refundInflight, runJob } from "../src/worker.ts";
import { Crash, FakeLedger, fakeSource, MemoryJobStore, runningJob } from "./support/fake-work.ts";

const PAGES = 3;
const START = 10;
const SETTINGS = {
  pagesPerSecond: 1_000_000,
  ackWaitMs: 1_000,
  balanceRetryMs: 1,
  pageRetryMs: 0,
  maxPageFailures: 3,
  retentionMs: 60_000,
  concurrency: 1,
};

let dir: string;
let objects: ObjectStore;
let jobs: MemoryJobStore;
let ledger: FakeLedger;
let source: ReturnType<typeof fakeSource>;
let told: { keyId: string; crossing: string; outcome: string }[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rda-worker-money-"));
  objects = filesystemStore(dir);
  jobs = new MemoryJobStore();
  ledger = new FakeLedger(START);
  source = fakeSource(PAGES);
  told = [];
  await jobs.create(runningJob("exp_job", PAGES));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function deps(): JobRunDeps {
  return {
    jobs,
    objects,
    source,
    billing: ledger,
    tellPaused: async (keyId, refusal, pause) => {
      told.push({ keyId, crossing: pause.crossing, outcome: refusal.outcome });
      return { ok: true, value: undefined };
    },
    logger: createLogger("exports-test", { level: "silent" }),
    settings: SETTINGS,
    writer: "w1",
  };
}

/** Runs the job's queue message until it is acked, as the queue would redeliver it. */
async function runToEnd(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) {
    const outcome = await runJob(deps(), { id: "exp_job", run: 1 }, () => false).catch((error: unknown) => {
      if (error instanceof Crash) return { kind: "retry" as const, delayMs: 0 };
      throw error;
    });
    if (outcome.kind === "ack") return;
  }
  throw new Error("the job never finished");
}

const state = async () => (await jobs.get("exp_job"))?.state;

describe("an export's pages", () => {
  it("are each debited once and settled once written; the finished job leaves nothing pending", async () => {
    await runToEnd();
    expect(await state()).toBe("done");
    expect(ledger.count("settled")).toBe(PAGES);
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(START - PAGES);
  });

  it("stop for good when billing refuses a debit as revoked: paused, not retried, nothing charged", async () => {
    ledger.revoked = true;
    const outcome = await runJob(deps(), { id: "exp_job", run: 1 }, () => false);
    expect(outcome.kind).toBe("ack");
    const record = await jobs.get("exp_job");
    expect(record).toMatchObject({ state: "paused", pausedBy: "revoked" });
    expect(record?.reason).toContain("revoked");
    expect(ledger.balance).toBe(START);
    expect(told).toEqual([]);
    // Its queue message coming back does not start it again.
    expect(await runJob(deps(), { id: "exp_job", run: 1 }, () => false)).toEqual({ kind: "ack" });
    expect(await state()).toBe("paused");
  });

  it("refund a failed page at once and ask it again under a new try, charged once", async () => {
    source.failing = 1;
    await runToEnd();
    expect(await state()).toBe("done");
    expect(ledger.count("refunded")).toBe(1);
    expect(ledger.count("settled")).toBe(PAGES);
    expect(ledger.balance).toBe(START - PAGES);
  });

  it("queue a failed page's refund when billing is not reached, and get it back once billing is", async () => {
    source.failing = 1;
    const failedPage = runJob(deps(), { id: "exp_job", run: 1 }, () => false);
    // Billing goes away as the page fails: the debit was taken, the refund cannot be answered.
    const original = ledger.refund.bind(ledger);
    ledger.refund = async (keyId, workId) => {
      ledger.reachable = false;
      const queued = await original(keyId, workId);
      ledger.reachable = true;
      return queued;
    };
    await failedPage;
    expect(ledger.queued).toHaveLength(1);
    expect(ledger.count("pending")).toBe(1);
    ledger.deliverQueued();
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(START - PAGES);
    expect(ledger.count("refunded")).toBe(1);
  });

  it("pause the job when the balance runs out, tell the account once, and resume after a top-up", async () => {
    ledger.balance = 1;
    await runJob(deps(), { id: "exp_job", run: 1 }, () => false);
    expect(await jobs.get("exp_job")).toMatchObject({ state: "paused", pausedBy: "balance" });
    await runJob(deps(), { id: "exp_job", run: 1 }, () => false);
    expect(new Set(told.map((t) => t.crossing))).toEqual(new Set(["exp_job.p2:insufficient"]));
    expect(told[0]).toMatchObject({ keyId: "key_0000000000000001", outcome: "insufficient" });
    ledger.balance += 5;
    await runToEnd();
    expect(await state()).toBe("done");
    expect(ledger.count("settled")).toBe(PAGES);
    expect(ledger.balance).toBe(6 - PAGES);
  });

  it("wait, charging nothing, while billing does not answer the debit", async () => {
    ledger.reachable = false;
    expect(await runJob(deps(), { id: "exp_job", run: 1 }, () => false)).toEqual({
      kind: "retry",
      delayMs: 0,
    });
    expect(ledger.debits.size).toBe(0);
    ledger.reachable = true;
    await runToEnd();
    expect(ledger.balance).toBe(START - PAGES);
  });

  it("give back the page in flight when the job is cancelled after its worker died", async () => {
    ledger.crashAfterDebit = true;
    await runJob(deps(), { id: "exp_job", run: 1 }, () => false).catch(() => undefined);
    expect(ledger.count("pending")).toBe(1);
    // The cancel command, as commands.ts runs it.
    const cancelled = await jobs.update("exp_job", (r) => ({ ...r, state: "cancelled" }));
    await refundInflight(deps(), cancelled!, "cancelled");
    expect(await runJob(deps(), { id: "exp_job", run: 1 }, () => false)).toEqual({ kind: "ack" });
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(START);
  });
});

describe("a worker that dies", () => {
  const advanced = (pages: number) => (next: { checkpoint: { pages: number } }) =>
    next.checkpoint.pages === pages;
  const crashes: [string, () => void][] = [
    [
      "between marking the page in flight and the debit",
      () => {
        jobs.crashOnUpdate = (next) => next.checkpoint.inflightDebit === "exp_job.p2.a0";
      },
    ],
    [
      "between the debit and its answer",
      () => {
        ledger.crashAfterDebit = true;
      },
    ],
    [
      "between the page's answer and writing it",
      () => {
        const put = objects.put.bind(objects);
        let crashed = false;
        objects.put = async (name, data) => {
          if (!crashed) {
            crashed = true;
            throw new Crash("died before the write");
          }
          return put(name, data);
        };
      },
    ],
    [
      "between writing the page and the checkpoint",
      () => {
        jobs.crashOnUpdate = advanced(1);
      },
    ],
    [
      "between the checkpoint and the settle",
      () => {
        const settle = ledger.settle.bind(ledger);
        let crashed = false;
        ledger.settle = async (keyId, workId) => {
          if (!crashed) {
            crashed = true;
            throw new Crash("died before the settle");
          }
          return settle(keyId, workId);
        };
      },
    ],
  ];

  it.each(crashes)(
    "%s charges each page exactly once, and the job reports what the ledger took",
    async (_, arm) => {
      arm();
      await runToEnd();
      expect(await state()).toBe("done");
      // What the next run found pending it ended itself: billing's deadline has nothing to return.
      expect(ledger.count("pending")).toBe(0);
      expect(ledger.count("settled")).toBe(PAGES);
      expect(ledger.balance).toBe(START - PAGES);
      expect((await jobs.get("exp_job"))?.checkpoint.credits).toBe(PAGES);
    },
  );

  it("is run again after billing forgot its pages' debits: the job's credits stay what was charged", async () => {
    await runToEnd();
    // Long after, billing's records of the pages' debits have expired (their retention).
    ledger.debits.clear();
    expect(await runJob(deps(), { id: "exp_job", run: 1 }, () => false)).toEqual({ kind: "ack" });
    expect((await jobs.get("exp_job"))?.checkpoint.credits).toBe(PAGES);
  });

  it("stalls past its page's deadline: the voided page is free, and the job's credits say so", async () => {
    const settle = ledger.settle.bind(ledger);
    let stalled = false;
    ledger.settle = async (keyId, workId) => {
      if (!stalled) {
        stalled = true;
        // Billing's voider ran while the worker was stalled between the checkpoint and the settle.
        ledger.voidAll();
      }
      return settle(keyId, workId);
    };
    await runToEnd();
    expect(await state()).toBe("done");
    expect(ledger.count("voided")).toBe(1);
    expect(ledger.balance).toBe(START - (PAGES - 1));
    expect((await jobs.get("exp_job"))?.checkpoint.credits).toBe(PAGES - 1);
  });
});
