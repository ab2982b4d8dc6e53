/**
 * A debit stays pending until the gateway settles it (its answer reached the client) or refunds it;
 * billing voids it, journaled as a refund, once its deadline passes. Each debit ends exactly once,
 * and `ledger verify` stays exact throughout.
 */
import { refundReplySchema, settleReplySchema } from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, balanceOf, createKey, debitWork, newRequestId, verify } from "./ops.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness("pending", { ...TEST_SETTINGS, pendingSweepMs: 100 });
});
afterAll(() => h.close());

const settle = (keyId: string, requestIds: string[]) =>
  h.request(
    h.subjects.billing.settle,
    { debits: requestIds.map((request_id) => ({ key_id: keyId, request_id })) },
    settleReplySchema,
  );
const refundNow = (keyId: string, requestId: string) =>
  h.request(
    h.subjects.billing.refund,
    { key_id: keyId, request_id: requestId, reason: "upstream_unavailable" },
    refundReplySchema,
  );

describe("pending debits", () => {
  it("keeps a settled debit past its deadline, and ignores a refund that comes after the settlement", async () => {
    const key = await createKey(h, { credits: 5 });
    const requestId = newRequestId();
    await admit(h, key, { requestId, pendingMs: 1_000 });
    expect(await settle(key.id, [requestId])).toEqual({ settled: 1, ignored: 0, ends: ["settled"] });
    expect(await settle(key.id, [requestId])).toEqual({ settled: 0, ignored: 1, ends: ["already_settled"] });
    expect(await refundNow(key.id, requestId)).toEqual({ outcome: "already_settled", balance: 4 });
    // The deadline passes and the sweep runs several times: a settled debit is not voided.
    const deadline = Date.now() + 1_500;
    await waitFor(() => Date.now() > deadline, "the debit's deadline to pass", 5_000);
    expect(await balanceOf(h, key)).toBe(4);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, debit: 1 });
  });

  it("voids a debit nobody settled once its deadline passes, journaled as a refund, exactly once", async () => {
    const key = await createKey(h, { credits: 5 });
    const requestIds = [newRequestId(), newRequestId()];
    for (const requestId of requestIds) await admit(h, key, { requestId, pendingMs: 1_000 });
    expect(await balanceOf(h, key)).toBe(3);
    await waitFor(async () => (await balanceOf(h, key)) === 5, "both debits to be voided", 10_000);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, debit: 2, refund: 2 });
    // Too late to settle or refund: the debit has ended.
    expect(await settle(key.id, requestIds)).toEqual({ settled: 0, ignored: 2, ends: ["voided", "voided"] });
    expect(await refundNow(key.id, requestIds[0]!)).toEqual({ outcome: "voided", balance: 5 });
    expect((await verify(h)).ok).toBe(true);
  });

  it("renews a pending work debit's deadline when it is asked again, and never brings a settled one back", async () => {
    const key = await createKey(h, { credits: 5 });
    const workId = "exp_renewal.p1.a0";
    const member = `${key.id}|${workId}`;
    const deadline = async () => Number(await h.redis.zscore(h.keys.pendingDebits, member));
    expect(await debitWork(h, key.id, workId, "exportPage", 60_000)).toMatchObject({ outcome: "debited" });
    const first = await deadline();
    // A replica that takes a dead worker's page over asks for the same debit: charged once, and
    // given a whole deadline from now for the page it is about to fetch.
    await waitFor(
      async () => Number((await h.redis.time())[0]) * 1_000 > first - 60_000 + 1_000,
      "a second to pass",
    );
    expect(await debitWork(h, key.id, workId, "exportPage", 60_000)).toMatchObject({
      outcome: "already_debited",
      balance: 4,
    });
    expect(await deadline()).toBeGreaterThan(first);
    expect(await settle(key.id, [workId])).toEqual({ settled: 1, ignored: 0, ends: ["settled"] });
    expect(await debitWork(h, key.id, workId, "exportPage", 60_000)).toMatchObject({
      outcome: "already_debited",
    });
    expect(await h.redis.zscore(h.keys.pendingDebits, member)).toBeNull();
    expect(await balanceOf(h, key)).toBe(4);
  });

  it("refunds a pending debit at once, answers its balance, and never twice", async () => {
    const key = await createKey(h, { credits: 5 });
    const requestId = newRequestId();
    await admit(h, key, { requestId });
    const replies = await Promise.all([refundNow(key.id, requestId), refundNow(key.id, requestId)]);
    expect(replies.map((reply) => reply.outcome).sort()).toEqual(["already_refunded", "refunded"]);
    expect(replies.every((reply) => reply.balance === 5)).toBe(true);
    expect(await settle(key.id, [requestId])).toEqual({ settled: 0, ignored: 1, ends: ["already_refunded"] });
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, debit: 1, refund: 1 });
  });

  it("settles many debits in one request", async () => {
    const key = await createKey(h, { credits: 50, rate_limit: { qps: 100, burst: 100 } });
    const requestIds = Array.from({ length: 30 }, newRequestId);
    for (const requestId of requestIds) await admit(h, key, { requestId });
    expect(await settle(key.id, requestIds)).toMatchObject({ settled: 30, ignored: 0 });
    expect(await h.redis.zcard(h.keys.pendingDebits)).toBe(0);
  });
});
