/**
 * The exports and monitors workers killed with SIGKILL between a debit and its settlement, on a
 * stack of real processes with its own Redis and NATS: the export page debited and waiting on the
 * upstream, the webhook batch debited and waiting on its receiver. The restarted worker takes the
 * work over under the same debit id (an ack wait or a delivery lease later) and settles it: every
 * page and every batch is charged once, no row or item is lost or doubled, and `ledger verify` is
 * clean.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorKeys } from "../../services/monitors/src/index.ts";
import { batchesReceived, startReceiver } from "../e2e/monitor-webhooks.support.ts";
import { type FaultStack, startFaultStack } from "./fault-stack.ts";
import {
  askMonitors,
  call,
  createMonitor,
  EXPORT_PAGES_PATH,
  exportRows,
  finished,
  pageThroughApi,
  startExport,
  waitForJob,
} from "./work.ts";

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack({ work: true });
}, 120_000);
afterAll(async () => stack?.stop(), 30_000);

describe("workers killed between a debit and its settlement", () => {
  it("settles the export page a killed worker had debited once, and loses no row", async () => {
    const initial = 1_000;
    const owner = await stack.createKey(initial);
    const job = await startExport(stack, owner.key);
    const injected = await stack.faultsInjected();
    await stack.upstreamFault({ mode: "timeout", path: EXPORT_PAGES_PATH });
    await waitFor(async () => (await stack.faultsInjected()) > injected, "a debited page asked upstream");
    await stack.kill("exports");
    await stack.clearUpstreamFaults();
    await stack.restart("exports");

    const done = await waitForJob(stack, owner.key, job.id, finished, "the export to finish");
    expect(done.state, done.reason ?? "").toBe("done");
    await stack.settled();
    const pages = done.progress.pages_done;
    expect(done.progress.credits_spent).toBe(pages);
    expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: pages, journal: pages });
    const rows = await exportRows(stack, owner.key, done);
    const reader = await stack.createKey(1_000);
    expect(rows.map((row) => row.id)).toEqual((await pageThroughApi(stack, reader.key)).map((row) => row.id));
    expect(await stack.verifyLedger()).toMatchObject({ ok: true });
  }, 120_000);

  it("settles the webhook batch a killed worker had debited once, and loses no item", async () => {
    const initial = 100;
    const receiver = await startReceiver();
    try {
      receiver.hold();
      const owner = await stack.createKey(initial);
      const monitor = await createMonitor(stack, owner.key, receiver.url);
      await waitFor(() => receiver.received.length > 0, "the first batch in flight", 60_000);
      expect(await stack.balanceOf(owner)).toBe(initial - 1);
      await stack.kill("monitors");
      receiver.release();
      await stack.restart("monitors");

      // Every item the monitor holds went out in a delivered batch (the log, read through the API).
      const itemsKey = monitorKeys("").items(monitor.id);
      const log = (await waitFor(
        async () => {
          const answer = await call(stack, owner.key, "GET", `/v1/monitors/${monitor.id}/deliveries`);
          const deliveries = (
            answer.json.data as { deliveries: { state: string; items: number; type: string }[] }
          ).deliveries;
          const batches = deliveries.filter((delivery) => delivery.type === "monitor.items");
          const held = await stack.ledger.xlen(itemsKey);
          const sent = batches.reduce((sum, delivery) => sum + delivery.items, 0);
          return held > 0 && sent === held && batches.every((delivery) => delivery.state === "delivered")
            ? batches
            : undefined;
        },
        "every batch delivered",
        90_000,
      )) as { items: number }[];
      await askMonitors(stack, "delete", { key_id: owner.id, id: monitor.id });
      await stack.settled();

      // The batch cut by the kill was sent again under its webhook-id: counted once, charged once.
      const batches = batchesReceived(monitor.secret, receiver.received);
      expect(batches.length).toBe(log.length);
      expect(receiver.received.length).toBeGreaterThan(batches.length);
      const items = batches.flatMap((batch) => batch.data.items.map((item) => item.id));
      expect(new Set(items).size).toBe(items.length);
      expect(items.length).toBe(log.reduce((sum, delivery) => sum + delivery.items, 0));
      expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: log.length, journal: log.length });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    } finally {
      await receiver.stop();
    }
  }, 150_000);
});
