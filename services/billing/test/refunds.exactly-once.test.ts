import type { RefundMessage } from "@rda/contracts";
import { jetstream, publishRefund } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, refundsDrained, startHarness } from "./harness.ts";
import { balanceOf, createKey, debit, newRequestId, verify } from "./ops.ts";

describe("refunds", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("refunds");
  });
  afterAll(() => h.close());

  const refundFor = (keyId: string, requestId: string): RefundMessage => ({
    key_id: keyId,
    request_id: requestId,
    reason: "upstream_unavailable",
  });

  /** Publishes without a msg id, so JetStream's dedup cannot help: only the debit marker can. */
  const publishWithoutDedup = (message: RefundMessage) =>
    jetstream(h.nats).publish(h.subjects.billing.refunds, JSON.stringify(message));

  it("applies a refund delivered 3 times exactly once", async () => {
    const created = await createKey(h, { credits: 10 });
    const { id } = created;
    const requestId = newRequestId();
    await debit(h, created, requestId);
    const message = refundFor(id, requestId);
    const published = [];
    for (let i = 0; i < 3; i++) published.push(await publishRefund(h.nats, h.subjects, message));
    expect(published).toEqual([
      { ok: true, value: { duplicate: false } },
      { ok: true, value: { duplicate: true } },
      { ok: true, value: { duplicate: true } },
    ]);
    for (let i = 0; i < 3; i++) await publishWithoutDedup(message);
    await waitFor(() => refundsDrained(h), "refunds to be handled");
    expect(await balanceOf(h, created)).toBe(10);
    expect(await journalTypes(h, id)).toEqual({ grant: 1, debit: 1, refund: 1 });
  });

  it("ignores a refund for a request id that was never debited", async () => {
    const created = await createKey(h, { credits: 10 });
    const { id } = created;
    await publishRefund(h.nats, h.subjects, refundFor(id, newRequestId()));
    await publishRefund(h.nats, h.subjects, refundFor("key_0000000000000000", newRequestId()));
    await waitFor(() => refundsDrained(h), "refunds to be handled");
    expect(await balanceOf(h, created)).toBe(10);
    expect(await journalTypes(h, id)).toEqual({ grant: 1 });
  });

  it("terminates a malformed refund message with a log line instead of redelivering it", async () => {
    await jetstream(h.nats).publish(h.subjects.billing.refunds, "{not json");
    await jetstream(h.nats).publish(h.subjects.billing.refunds, JSON.stringify({ key_id: "nope" }));
    await waitFor(() => refundsDrained(h), "malformed refunds to be dropped");
    expect(h.logLines().match(/malformed refund message dropped/g)).toHaveLength(2);
  });

  it("applies refunds published while billing is stopped once it restarts, none twice", async () => {
    const created = await createKey(h, { credits: 20 });
    const { id } = created;
    const requestIds = Array.from({ length: 5 }, newRequestId);
    for (const requestId of requestIds) await debit(h, created, requestId);
    expect(await balanceOf(h, created)).toBe(15);
    await h.stop();
    for (const requestId of requestIds) {
      expect(await publishRefund(h.nats, h.subjects, refundFor(id, requestId))).toEqual({
        ok: true,
        value: { duplicate: false },
      });
      await publishWithoutDedup(refundFor(id, requestId));
    }
    await h.start();
    await waitFor(() => refundsDrained(h), "refunds from the downtime to be handled");
    expect(await h.redis.hget(h.keys.keyRecord(id), "balance")).toBe("20");
    expect(await journalTypes(h, id)).toEqual({ grant: 1, debit: 5, refund: 5 });
    expect((await verify(h)).ok).toBe(true);
  });

  it("shares one durable consumer between two billing replicas, each refund applied once", async () => {
    const second = await h.start();
    try {
      const created = await createKey(h, { credits: 50, rate_limit: { qps: 1_000, burst: 1_000 } });
      const { id } = created;
      const requestIds = Array.from({ length: 40 }, newRequestId);
      await Promise.all(requestIds.map((requestId) => debit(h, created, requestId)));
      await Promise.all(requestIds.map((requestId) => publishWithoutDedup(refundFor(id, requestId))));
      await Promise.all(requestIds.map((requestId) => publishWithoutDedup(refundFor(id, requestId))));
      await waitFor(() => refundsDrained(h), "refunds to be handled by both replicas");
      expect(await balanceOf(h, created)).toBe(50);
      expect(await journalTypes(h, id)).toEqual({ grant: 1, debit: 40, refund: 40 });
    } finally {
      await second.stop();
    }
  });
});
