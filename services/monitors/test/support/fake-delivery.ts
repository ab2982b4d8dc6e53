/**
 * Fakes of the delivery loop's own interfaces beside its real outbox on Redis: billing, the monitor
 * store, in memory, and a real HTTP receiver answering the statuses a test asks for. The fake ledger
 * keeps billing's rules: a work debit is taken once per id and ends once (settled, refunded or
 * voided); a refund billing does not answer is queued (the refund stream) and applied when billing
 * is back.
 */
import { createServer } from "node:http";
import { type DebitEnd, err, ok, type WorkDebitReply } from "@rda/contracts";
import { freePort } from "@rda/service-kit/testing";
import type { MonitorRecord } from "../../src/monitor.ts";
import type { DeliveryBilling } from "../../src/webhooks/delivery-billing.ts";

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

/**
 * A receiver on 127.0.0.1 answering each POST with the next of `statuses` (then its last one);
 * `posts` holds each POST's `webhook-id`.
 */
export async function startReceiver(...statuses: number[]) {
  const posts: string[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      posts.push(String(request.headers["webhook-id"]));
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
      response.writeHead(status).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    posts,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
