/**
 * Billing frozen (SIGSTOP) while background work must give a credit back, on a stack of real
 * processes with its own Redis and NATS: an export page whose upstream call fails, and a monitor's
 * webhook removed while its batch is in flight. Each refund finds billing silent and is queued in
 * the refund stream (JetStream); once billing runs again (SIGCONT) it meets the refund twice, the
 * queued one and the request left waiting on its connection, and applies it once: the balance is
 * exact and `ledger verify` is clean.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver } from "../e2e/monitor-webhooks.support.ts";
import { type FaultStack, startFaultStack } from "./fault-stack.ts";
import {
  askMonitors,
  createMonitor,
  EXPORT_PAGES_PATH,
  exportRows,
  finished,
  startExport,
  waitForJob,
  whileStopped,
} from "./work.ts";

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack({ work: true });
}, 120_000);
afterAll(async () => stack?.stop(), 30_000);

describe("billing stopped while background work gives credits back", () => {
  it("gives back the credit of an export page that failed while billing was stopped, once", async () => {
    const initial = 1_000;
    const owner = await stack.createKey(initial);
    const job = await startExport(stack, owner.key);
    const injected = await stack.faultsInjected();
    // From now on upstream calls hang: the next page is debited, then fails at the adapter.
    await stack.upstreamFault({ mode: "timeout", path: EXPORT_PAGES_PATH });
    await waitFor(async () => (await stack.faultsInjected()) > injected, "a debited page asked upstream");
    const exportsProcess = stack.process("exports");
    await whileStopped(stack, "billing", async () => {
      await exportsProcess.waitForLine(/page refund queued; billing was not reached/, 30_000);
      await stack.clearUpstreamFaults();
    });

    const done = await waitForJob(stack, owner.key, job.id, finished, "the export to finish");
    expect(done.state, done.reason ?? "").toBe("done");
    await stack.settled();
    const pages = done.progress.pages_done;
    expect(done.progress.credits_spent).toBe(pages);
    expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: pages, journal: pages });
    const rows = await exportRows(stack, owner.key, done);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(rows.length).toBe(done.progress.rows_done);
    expect(await stack.verifyLedger()).toMatchObject({ ok: true });
  }, 120_000);

  it("gives back the credit of a batch in flight when its webhook is removed while billing is stopped", async () => {
    const initial = 100;
    const receiver = await startReceiver();
    try {
      receiver.hold();
      const owner = await stack.createKey(initial);
      const monitor = await createMonitor(stack, owner.key, receiver.url);
      await waitFor(() => receiver.received.length > 0, "the first batch in flight", 60_000);
      expect(await stack.balanceOf(owner)).toBe(initial - 1);

      await whileStopped(stack, "billing", () =>
        askMonitors(stack, "update", { key_id: owner.id, id: monitor.id, body: { webhook_url: null } }),
      );
      await waitFor(
        async () => (await stack.balanceOf(owner)) === initial,
        "the batch's credit back",
        30_000,
      );
      // The receiver now accepts the batch it held: its webhook is gone, so it is not paid for.
      receiver.release();
      await stack.settled();
      expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: 0, journal: 0 });
      expect(new Set(receiver.received.map((request) => request.headers["webhook-id"])).size).toBe(1);
      await askMonitors(stack, "delete", { key_id: owner.id, id: monitor.id });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    } finally {
      await receiver.stop();
    }
  }, 120_000);
});
