/**
 * Fakes of the delivery loop's own interfaces (its part of the webhook store and the monitor store,
 * the sender, billing), in memory, for the unit tests of its money logic. The fake ledger keeps
 * billing's rules: a work debit is taken once per id and ends once (settled, refunded or voided); a
 * refund billing does not answer is queued (the refund stream) and applied when billing is back.
 */
import { type DebitEnd, err, ok, type WorkDebitReply } from "@rda/contracts";
import type { MonitorRecord } from "../../src/monitor.ts";
import type { DeliveryBilling } from "../../src/webhooks/delivery-billing.ts";
import type { DeliveryAttempt, DeliveryRecord } from "../../src/webhooks/delivery-record.ts";
import type { DeliveryQueue } from "../../src/webhooks/delivery-worker.ts";
import type { Endpoint, EndpointStatus } from "../../src/webhooks/webhook-store.ts";

/** Thrown by a fake to stand for the replica dying at that step. */
export class Crash extends Error {}

type DebitState = "pending" | "settled" | "refunded" | "voided";

/** Arms a crash at the next call of `method` on `target` (once). */
export function crashOnce<T extends object>(target: T, method: keyof T & string, after = false): void {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    (target as Record<string, unknown>)[method] = original;
    if (!after) throw new Crash(`died before ${method}`);
    await original(...args);
    throw new Crash(`died after ${method}`);
  };
}

export class FakeLedger implements DeliveryBilling {
  balance: number;
  reachable = true;
  /** Billing answers every debit `revoked`, as it does once the key was revoked. */
  revoked = false;
  readonly debits = new Map<string, DebitState>();
  readonly queued: string[] = [];

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
  async owner() {
    return { account_id: "acct_1", balance: this.balance };
  }
  deliverQueued(): void {
    for (const id of this.queued.splice(0)) this.#end(id, "refunded");
  }
  count(state: DebitState): number {
    return [...this.debits.values()].filter((s) => s === state).length;
  }
  #end(workId: string, end: "settled" | "refunded"): DebitEnd {
    const state = this.debits.get(workId);
    if (state === undefined) return "expired";
    if (state === "voided") return "voided";
    if (state !== "pending") return state === "settled" ? "already_settled" : "already_refunded";
    this.debits.set(workId, end);
    if (end === "refunded") this.balance += 1;
    return end;
  }
}

export class MemoryQueue implements DeliveryQueue {
  readonly endpoints = new Map<string, Endpoint>();
  readonly queues = new Map<string, string[]>();
  readonly records = new Map<string, DeliveryRecord>();
  #lease: string | null = null;

  addEndpoint(monitorId: string): void {
    this.endpoints.set(monitorId, {
      url: "https://receiver.example/hook",
      secret: "sealed",
      previous_secret: null,
      previous_until: 0,
      status: "active",
      cursor: null,
      sequence: 0,
    });
    this.queues.set(monitorId, []);
  }
  async monitorsWithEndpoints() {
    return [...this.endpoints.keys()];
  }
  async claim(monitorId: string, owner: string) {
    if (this.#lease !== null) return undefined;
    this.#lease = owner;
    return {
      key: `lease:${monitorId}`,
      owner,
      renew: async () => this.#lease === owner,
      release: async () => {
        this.#lease = null;
      },
    };
  }
  async endpoint(monitorId: string) {
    return this.endpoints.get(monitorId);
  }
  async head(monitorId: string) {
    return this.queues.get(monitorId)?.[0] ?? null;
  }
  async delivery(_monitorId: string, id: string) {
    return this.records.get(id);
  }
  async createBatch(
    owner: string,
    record: DeliveryRecord,
    expected: { cursor: string | null },
    next: { cursor: string; sequence: number },
  ) {
    const endpoint = this.endpoints.get(record.monitor_id);
    const queue = this.queues.get(record.monitor_id);
    if (
      this.#lease !== owner ||
      !endpoint ||
      !queue ||
      endpoint.cursor !== expected.cursor ||
      queue.length > 0
    )
      return false;
    this.records.set(record.id, record);
    this.endpoints.set(record.monitor_id, { ...endpoint, ...next });
    queue.push(record.id);
    return true;
  }
  async save(owner: string, record: DeliveryRecord, dequeue = false) {
    if (this.#lease !== owner) return false;
    this.records.set(record.id, record);
    if (dequeue) {
      const queue = this.queues.get(record.monitor_id) ?? [];
      this.queues.set(
        record.monitor_id,
        queue.filter((id) => id !== record.id),
      );
    }
    return true;
  }
  async setStatus(monitorId: string, status: EndpointStatus) {
    const endpoint = this.endpoints.get(monitorId);
    if (endpoint) this.endpoints.set(monitorId, { ...endpoint, status });
  }
}

/** A monitor holding `items` items, read after a cursor (an item's index). */
export function memoryMonitors(monitor: MonitorRecord, items: number) {
  return {
    async get(id: string) {
      return id === monitor.id ? monitor : undefined;
    },
    async read(_id: string, cursor: string | null, count: number) {
      const from = cursor === null ? 0 : Number(cursor) + 1;
      const page = Array.from({ length: Math.max(0, Math.min(count, items - from)) }, (_, i) => ({
        n: from + i,
      }));
      return { items: page, cursor: page.length === 0 ? cursor : String(from + page.length - 1) };
    },
  };
}

/** A receiver answering each POST with the next status of `statuses` (then its last one). */
export function fakeReceiver(...statuses: number[]) {
  const posts: string[] = [];
  const send = async (record: DeliveryRecord): Promise<DeliveryAttempt> => {
    posts.push(record.id);
    const status = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
    const ok = status >= 200 && status < 300;
    return {
      at: Date.now(),
      round: record.round,
      status,
      latency_ms: 1,
      error: ok ? null : `HTTP ${status}`,
    };
  };
  return { send, posts };
}
