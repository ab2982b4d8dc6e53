/**
 * A monitor's webhook delivery and its money, on the real outbox (Redis) and a real HTTP receiver,
 * with billing faked: each batch round is a work debit taken before its first POST, settled once
 * the receiver accepted it, refunded when it failed for good or its webhook was removed; refused
 * for credits, the monitor pauses, its account is told once, and a top-up resumes it. A replica
 * dying between any two steps, and the next turn taking over, charges each accepted batch once and
 * leaves no debit that nobody ends; a replica that lost its lease writes nothing back.
 */
import { Counter, createLogger, type Redis, Registry } from "@rda/service-kit";
import { connectTestRedis, deleteNamespaceKeys, testNamespace } from "@rda/service-kit/testing";
import { newWebhookSecret, sealSecret, sendDue, WebhookOutbox } from "@rda/webhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MonitorRecord } from "../src/monitor.ts";
import { type DeliveryRecord, debitIdOf } from "../src/webhooks/delivery-record.ts";
import { type DeliveryWorkerDeps, deliveryLoop, refundRound } from "../src/webhooks/delivery-worker.ts";
import { WebhookEndpoints } from "../src/webhooks/webhook-endpoints.ts";
import { webhookKeys } from "../src/webhooks/webhook-keys.ts";
import { DEFAULT_WEBHOOK_SETTINGS } from "../src/webhooks/webhook-settings.ts";
import { Crash, crashOnce, FakeLedger, memoryMonitors, startReceiver } from "./support/fake-delivery.ts";

const namespace = testNamespace("money");
const SEALING_KEY = Buffer.alloc(32, 3);
const SETTINGS = {
  ...DEFAULT_WEBHOOK_SETTINGS,
  sealingKey: SEALING_KEY,
  allowLoopback: true,
  attemptTimeoutMs: 2_000,
  // A failed attempt ends the round at once; a refused debit is asked again on the next turn.
  retryWindowMs: 0,
  firstRetryMs: 1,
  creditsRetryMs: 0,
};

let redis: Redis;
let outbox: WebhookOutbox<DeliveryRecord>;
let endpoints: WebhookEndpoints;
let monitor: MonitorRecord;
let ledger: FakeLedger;
let told: { kind: string; crossing: string }[];
let revokedKeys: string[];
const receivers: { stop(): Promise<void> }[] = [];
let monitorCount = 0;

beforeAll(async () => {
  redis = await connectTestRedis();
  const keys = webhookKeys(namespace);
  outbox = new WebhookOutbox<DeliveryRecord>(redis, keys);
  endpoints = new WebhookEndpoints(redis, keys, outbox);
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
  await deleteNamespaceKeys(redis, namespace);
  redis.disconnect();
});

beforeEach(() => {
  monitorCount += 1;
  monitor = {
    id: `mon_money${monitorCount}`,
    key_id: "key_0000000000000001",
    kind: "posts",
    subreddit: "typescript",
    interval_seconds: 60,
    paused: false,
    created_at: 0,
    phase: "live",
  } as unknown as MonitorRecord;
  ledger = new FakeLedger(10);
  told = [];
  revokedKeys = [];
});

/** A receiver answering `statuses` in turn, set as the monitor's webhook. */
async function receiver(...statuses: number[]) {
  const started = await startReceiver(...statuses);
  receivers.push(started);
  await endpoints.configure(monitor.id, started.url, sealSecret(SEALING_KEY, newWebhookSecret()), null);
  return started;
}

function deps(items = 50, holder = "replica-1"): DeliveryWorkerDeps {
  return {
    monitors: memoryMonitors(monitor, items),
    outbox,
    endpoints,
    billing: ledger,
    notices: {
      failing: async (_key, _monitor, crossing) => void told.push({ kind: "webhook_failing", crossing }),
      outOfCredits: async (_key, _monitor, crossing) => void told.push({ kind: "spending_paused", crossing }),
    },
    settings: SETTINGS,
    logger: createLogger("monitors-test", { level: "silent" }),
    owner: holder,
    keyRevoked: async (keyId) => void revokedKeys.push(keyId),
    attempts: new Counter({
      name: "attempts_total",
      help: "test",
      labelNames: ["outcome"],
      registers: [new Registry()],
    }),
  };
}

/** Turns until the monitor's queue is empty (or `most` ran out). */
async function turns(d: DeliveryWorkerDeps, most = 10): Promise<void> {
  const loop = deliveryLoop(d);
  for (let turn = 0; turn < most; turn++) {
    await sendDue(loop, () => false);
    if ((await outbox.head(monitor.id)) === null && turn > 0) return;
  }
}

const head = async () => {
  const id = await outbox.head(monitor.id);
  return id === null ? undefined : outbox.delivery(monitor.id, id);
};
const status = async () => (await endpoints.endpoint(monitor.id))?.status;

describe("a webhook batch", () => {
  it("is debited once before its POST and settled once the receiver accepted it", async () => {
    const hooks = await receiver(200);
    await turns(deps(150));
    expect(hooks.posts).toHaveLength(2);
    expect(ledger.count("settled")).toBe(2);
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(8);
    const log = await outbox.log(monitor.id, 10, Date.now());
    expect(log.map((record) => [record.state, record.data.items.length])).toEqual([
      ["delivered", 50],
      ["delivered", 100],
    ]);
  });

  it("that fails for good is refunded once, stays first in line, and the monitor is failing and its account told", async () => {
    const hooks = await receiver(500);
    await turns(deps(), 3);
    expect(hooks.posts).toHaveLength(1);
    expect(ledger.count("refunded")).toBe(1);
    expect(ledger.balance).toBe(10);
    expect(await status()).toBe("failing");
    expect((await head())?.state).toBe("failed");
    expect(told.filter((t) => t.kind === "webhook_failing")).toHaveLength(1);
  });

  it("refused because the key was revoked is never sent nor charged, and stops the key's monitors rather than pausing for credits", async () => {
    ledger.revoked = true;
    const hooks = await receiver(200);
    await turns(deps(), 3);
    expect(hooks.posts).toHaveLength(0);
    expect(ledger.balance).toBe(10);
    expect(revokedKeys).toContain(monitor.key_id);
    expect(await status()).not.toBe("paused_for_credits");
    expect(told).toEqual([]);
  });

  it("refused for credits pauses the monitor, tells its account once, and goes on after a top-up", async () => {
    ledger.balance = 0;
    const hooks = await receiver(200);
    await turns(deps(), 3);
    expect(hooks.posts).toHaveLength(0);
    expect(await status()).toBe("paused_for_credits");
    expect(told).toEqual([{ kind: "spending_paused", crossing: `${debitIdOf((await head())!)}:credits` }]);
    ledger.balance = 3;
    await turns(deps());
    expect(hooks.posts).toHaveLength(1);
    expect(await status()).toBe("active");
    expect(ledger.balance).toBe(2);
    expect(ledger.count("settled")).toBe(1);
  });

  it("accepted while billing does not answer stays accepted, is settled on a later turn, and is not POSTed again", async () => {
    const hooks = await receiver(200);
    const settle = ledger.settle.bind(ledger);
    ledger.settle = async () => {
      ledger.settle = settle;
      return { ok: false, error: "deferred" };
    };
    await sendDue(deliveryLoop(deps()), () => false);
    expect((await head())?.state).toBe("accepted");
    await turns(deps());
    expect(hooks.posts).toHaveLength(1);
    expect(ledger.count("settled")).toBe(1);
  });

  it("whose webhook is removed mid-delivery while billing is unreachable is refunded once billing is back", async () => {
    await receiver(500);
    const d = { ...deps(), settings: { ...SETTINGS, retryWindowMs: 60_000 } };
    await sendDue(deliveryLoop(d), () => false);
    const record = (await head())!;
    expect(record.debited_round).toBe(record.round);
    expect(ledger.balance).toBe(9);
    // What removing the webhook does with the head batch (monitor-webhooks.ts), billing unreachable.
    ledger.reachable = false;
    await refundRound({ billing: ledger, logger: d.logger }, monitor, record, "webhook_removed");
    expect(ledger.queued).toEqual([debitIdOf(record)]);
    ledger.reachable = true;
    ledger.deliverQueued();
    expect(ledger.balance).toBe(10);
    expect(ledger.count("pending")).toBe(0);
  });
});

describe("a replica that dies", () => {
  const crashes: [string, () => void][] = [
    ["after the debit, before saving it", () => crashOnce(ledger, "debit", true)],
    [
      "after the receiver accepted, before saving that",
      () => {
        const save = outbox.save.bind(outbox);
        outbox.save = async (holder, record, dequeue) => {
          if (record.state !== "accepted") return save(holder, record, dequeue);
          outbox.save = save;
          throw new Crash("died before saving the acceptance");
        };
      },
    ],
    ["between saving the acceptance and the settle", () => crashOnce(ledger, "settle")],
    ["between the settle and marking the batch delivered", () => crashOnce(ledger, "settle", true)],
  ];

  it.each(crashes)("%s: the next turn charges the batch once and settles it", async (_, arm) => {
    const hooks = await receiver(200);
    arm();
    await turns(deps());
    expect(await outbox.head(monitor.id)).toBeNull();
    expect(ledger.count("settled")).toBe(1);
    expect(ledger.count("pending")).toBe(0);
    expect(ledger.balance).toBe(9);
    // A batch POSTed again after a crash carries the same webhook-id: the receiver dedupes it.
    expect(new Set(hooks.posts).size).toBe(1);
  });
});

describe("a replica that stalled past its lease", () => {
  it("writes nothing back: the replica that took over moves the batch, charged once", async () => {
    const hooks = await receiver(200);
    const stalled = deps(50, "replica-stalled");
    const debit = ledger.debit.bind(ledger);
    // The stalled replica's lease runs out while billing answers its debit; another takes over.
    ledger.debit = async (keyId, workId) => {
      ledger.debit = debit;
      const answer = await debit(keyId, workId);
      await redis.set(webhookKeys(namespace).lease(monitor.id), "replica-2");
      return answer;
    };
    await sendDue(deliveryLoop(stalled), () => false);
    expect(hooks.posts).toHaveLength(0);
    expect((await head())?.debited_round).toBeNull();
    await redis.del(webhookKeys(namespace).lease(monitor.id));
    await turns(deps(50, "replica-2"));
    expect(hooks.posts).toHaveLength(1);
    expect(ledger.count("settled")).toBe(1);
    expect(ledger.balance).toBe(9);
  });
});
