/**
 * The last backstop of a work debit (docs/architecture.md#a-work-debits-life): billing down
 * (killed: a frozen one would still answer the refund it finds waiting on its connection once it
 * runs again) when an export page fails, and the refund stream refusing the refund too (its largest
 * message set to one byte, a limit billing's own stream setup leaves alone, so every JetStream
 * publish of a refund is refused, before and after billing is back). Nobody can give the
 * credit back but billing's voider: it voids the page's debit at its deadline (five ack waits),
 * the refund published once the stream takes it again finds the debit ended, and the balance is
 * exact, with `ledger verify` clean. Real processes, their own Redis and NATS.
 */
import { buildSubjects } from "@rda/contracts";
import { jetstreamManager, redisKeys } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE_DEADLINE_MS, type FaultStack, startFaultStack } from "./fault-stack.ts";
import { EXPORT_PAGES_PATH, exportRows, finished, startExport, waitForJob } from "./work.ts";

const subjects = buildSubjects("");

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack({ work: true });
}, 120_000);
afterAll(async () => stack?.stop(), 30_000);

/** The journal entries of one debit (its request id): what each did to the balance. */
async function journalOf(keyId: string, requestId: string): Promise<{ type: string; delta: number }[]> {
  const entries = await stack.ledger.xrange(redisKeys("").journal(keyId), "-", "+");
  return entries.flatMap(([, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    return field("request_id") === requestId ? [{ type: field("type")!, delta: Number(field("delta")) }] : [];
  });
}

describe("a refund neither billing nor its stream takes", () => {
  it("is returned by billing's voider at the debit's deadline, once", async () => {
    const initial = 1_000;
    const owner = await stack.createKey(initial);
    const jsm = await jetstreamManager(stack.client);
    const refunds = (await jsm.streams.info(subjects.refundStream)).config;
    // The refund stream stops taking refunds: publishing one is refused (message too large).
    await jsm.streams.update(subjects.refundStream, { max_msg_size: 1 });
    const job = await startExport(stack, owner.key);
    const injected = await stack.faultsInjected();
    await stack.upstreamFault({ mode: "timeout", path: EXPORT_PAGES_PATH });
    await waitFor(async () => (await stack.faultsInjected()) > injected, "a debited page asked upstream");
    const exportsProcess = stack.process("exports");
    await stack.kill("billing");
    const line = await exportsProcess.waitForLine(/page refund queued; billing was not reached/, 30_000);
    const queued = JSON.parse(line) as { debit_id: string };
    await exportsProcess.waitForLine(/refund publish failed; will retry/, 30_000);
    await stack.clearUpstreamFaults();
    await stack.restart("billing");
    await stack
      .process("billing")
      .waitForLine(/voided pending debits nobody settled in time/, EXPORT_PAGE_DEADLINE_MS + 30_000);
    expect(await journalOf(owner.id, queued.debit_id)).toEqual([
      { type: "debit", delta: -1 },
      { type: "refund", delta: 1 },
    ]);

    // The stream takes refunds again: the queued one goes out, and finds its debit voided.
    const published = (await jsm.streams.info(subjects.refundStream)).state.last_seq;
    await jsm.streams.update(subjects.refundStream, { max_msg_size: refunds.max_msg_size });
    await waitFor(
      async () => (await jsm.streams.info(subjects.refundStream)).state.last_seq > published,
      "the queued refund published",
      60_000,
    );
    const done = await waitForJob(stack, owner.key, job.id, finished, "the export to finish");
    expect(done.state, done.reason ?? "").toBe("done");
    await stack.settled();
    expect(await journalOf(owner.id, queued.debit_id)).toEqual([
      { type: "debit", delta: -1 },
      { type: "refund", delta: 1 },
    ]);
    const pages = done.progress.pages_done;
    expect(done.progress.credits_spent).toBe(pages);
    expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: pages, journal: pages });
    const rows = await exportRows(stack, owner.key, done);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(await stack.verifyLedger()).toMatchObject({ ok: true });
  }, 120_000);
});
