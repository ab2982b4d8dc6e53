/**
 * A monitor's webhook delivery and its money, without servers: each batch round is a work debit
 * taken before its first POST, settled once the receiver accepted it, refunded when it failed for
 * good or its webhook was removed; refused for credits, the monitor pauses, its account is told
 * once, and a top-up resumes it. A replica dying between any two steps, and the next turn taking
 * over, charges each accepted batch once and leaves no debit that nobody ends.
 */
import { Counter, createLogger, Registry } from "@rda/service-kit";
import { beforeEach, describe, expect, it } from "vitest";
import type { MonitorRecord } from "../src/monitor.ts";
import { debitIdOf } from "../src/webhooks/delivery-record.ts";
import { type DeliveryWorkerDeps, deliverDue, refundRound } from "../src/webhooks/delivery-worker.ts";
import { DEFAULT_WEBHOOK_SETTINGS } from "../src/webhooks/webhook-settings.ts";
import {
  Crash,
  crashOnce,
  FakeLedger,
  fakeReceiver,
  MemoryQueue,
  memoryMonitors,
} from "./support/fake-delivery.ts";

const MONITOR = {
  id: "mon_money",
  key_id: "key_0000000000000001",
  kind: "posts",
  subreddit: "typescript",
  interval_seconds: 60,
  paused: false,
  created_at: 0,
  phase: "live",
} as unknown as MonitorRecord;

const SETTINGS = {
  ...DEFAULT_WEBHOOK_SETTINGS,
  // A failed attempt ends the round at once; a refused debit is asked again on the next turn.
  retryWindowMs: 0,
  firstRetryMs: 1,
  creditsRetryMs: 0,
};

let queue: MemoryQueue;
let ledger: FakeLedger;
let told: { kind: string; crossing: string }[];
let revokedKeys: string[];

beforeEach(() => {
  queue = new MemoryQueue();
  queue.addEndpoint(MONITOR.id);
  ledger = new FakeLedger(10);
  told = [];
  revokedKeys = [];
});

function deps(send: DeliveryWorkerDeps["send"], items = 50): DeliveryWorkerDeps {
  return {
    monitors: memoryMonitors(MONITOR, items),
    webhooks: queue,
    send,
    billing: ledger,
    notices: {
      failing: async (_key, _monitor, crossing) => void told.push({ kind: "webhook_failing", crossing }),
      outOfCredits: async (_key, _monitor, crossing) => void told.push({ kind: "spending_paused", crossing }),
    },
    settings: SETTINGS,
    logger: createLogger("monitors-test", { level: "silent" }),
    owner: "replica-1",
    keyRevoked: async (keyId) => void revokedKeys.push(keyId),
    attempts: new Counter({
      name: "attempts_total",
      help: "test",
      labelNames: ["outcome"],
      registers: [new Registry()],
    }),
  };
}

/** Turns until the monitor's queue is empty (or `turns` ran out). */
async function turns(d: DeliveryWorkerDeps, most = 10): Promise<void> {
  for (let turn = 0; turn < most; turn++) {
    await deliverDue(d, () => false);
    if ((await queue.head(MONITOR.id)) === null && turn > 0) return;
  }
}

const head = async () => queue.records.get((await queue.head(MONITOR.id)) ?? "");

describe("a webhook batch", () => {
  it("is debited once before its POST and settled once the receiver accepted it", async () => {
    const receiver = fakeReceiver(200);
    await turns(deps(receiver.send, 150));
    expect(receiver.posts).toHaveLength(2);
    expect(ledger.count("settled")).toBe(2);
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(8);
  });

  it("that fails for good is refunded once, and the monitor is failing and its account told", async () => {
    const receiver = fakeReceiver(500);
    await turns(deps(receiver.send), 3);
    expect(ledger.count("refunded")).toBe(1);
    expect(ledger.balance).toBe(10);
    expect(queue.endpoints.get(MONITOR.id)?.status).toBe("failing");
    expect(told.filter((t) => t.kind === "webhook_failing")).toHaveLength(1);
  });

  it("refused because the key was revoked is never sent nor charged, and stops the key's monitors rather than pausing for credits", async () => {
    ledger.revoked = true;
    const receiver = fakeReceiver(200);
    await turns(deps(receiver.send), 3);
    expect(receiver.posts).toHaveLength(0);
    expect(ledger.balance).toBe(10);
    expect(revokedKeys).toContain(MONITOR.key_id);
    expect(queue.endpoints.get(MONITOR.id)?.status).not.toBe("paused_for_credits");
    expect(told).toEqual([]);
  });

  it("refused for credits pauses the monitor, tells its account once, and goes on after a top-up", async () => {
    ledger.balance = 0;
    const receiver = fakeReceiver(200);
    await turns(deps(receiver.send), 3);
    expect(receiver.posts).toHaveLength(0);
    expect(queue.endpoints.get(MONITOR.id)?.status).toBe("paused_for_credits");
    expect(told).toEqual([{ kind: "spending_paused", crossing: `${debitIdOf((await head())!)}:credits` }]);
    ledger.balance = 3;
    await turns(deps(receiver.send));
    expect(receiver.posts).toHaveLength(1);
    expect(queue.endpoints.get(MONITOR.id)?.status).toBe("active");
    expect(ledger.balance).toBe(2);
    expect(ledger.count("settled")).toBe(1);
  });

  it("accepted while billing does not answer stays accepted, is settled on a later turn, and is not POSTed again", async () => {
    const receiver = fakeReceiver(200);
    const settle = ledger.settle.bind(ledger);
    ledger.settle = async () => {
      ledger.settle = settle;
      return { ok: false, error: "deferred" };
    };
    await deliverDue(deps(receiver.send), () => false);
    expect((await head())?.state).toBe("accepted");
    await turns(deps(receiver.send));
    expect(receiver.posts).toHaveLength(1);
    expect(ledger.count("settled")).toBe(1);
  });

  it("whose webhook is removed mid-delivery while billing is unreachable is refunded once billing is back", async () => {
    const receiver = fakeReceiver(500);
    const d = { ...deps(receiver.send), settings: { ...SETTINGS, retryWindowMs: 60_000 } };
    await deliverDue(d, () => false);
    const record = (await head())!;
    expect(record.debited_round).toBe(record.round);
    expect(ledger.balance).toBe(9);
    // What removing the webhook does with the head batch (monitor-webhooks.ts), billing unreachable.
    ledger.reachable = false;
    await refundRound({ billing: ledger, logger: d.logger }, MONITOR, record, "webhook_removed");
    expect(ledger.queued).toEqual([debitIdOf(record)]);
    ledger.reachable = true;
    ledger.deliverQueued();
    expect(ledger.balance).toBe(10);
    expect(ledger.count("pending")).toBe(0);
  });
});

describe("a replica that dies", () => {
  const crashes: [string, (d: DeliveryWorkerDeps) => void][] = [
    ["after the debit, before saving it", () => crashOnce(ledger, "debit", true)],
    [
      "after the receiver accepted, before saving that",
      () => {
        const save = queue.save.bind(queue);
        queue.save = async (owner, record, dequeue) => {
          if (record.state !== "accepted") return save(owner, record, dequeue);
          queue.save = save;
          throw new Crash("died before saving the acceptance");
        };
      },
    ],
    ["between saving the acceptance and the settle", () => crashOnce(ledger, "settle")],
    ["between the settle and marking the batch delivered", () => crashOnce(ledger, "settle", true)],
  ];

  it.each(crashes)("%s: the next turn charges the batch once and settles it", async (_, arm) => {
    const receiver = fakeReceiver(200);
    const d = deps(receiver.send);
    arm(d);
    await turns(d);
    expect(await queue.head(MONITOR.id)).toBeNull();
    expect(ledger.count("settled")).toBe(1);
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(9);
    // A batch POSTed again after a crash carries the same webhook-id: the receiver dedupes it.
    expect(new Set(receiver.posts).size).toBe(1);
  });
});
