import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness } from "./harness.ts";
import { balanceOf, createKey, debit, newRequestId, verify } from "./ops.ts";

describe("debits at admission", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("debits");
  });
  afterAll(() => h.close());

  it("debits exactly 100 of 1,000 concurrent requests on a key with 100 credits, never below 0, and the journal agrees", async () => {
    const created = await createKey(h, { credits: 100, rate_limit: { qps: 100_000, burst: 100_000 } });
    const { id } = created;
    const replies = await Promise.all(Array.from({ length: 1_000 }, () => debit(h, created)));
    const debited = replies.filter((reply) => reply.outcome === "admitted");
    const insufficient = replies.filter((reply) => reply.outcome === "insufficient");
    expect(debited).toHaveLength(100);
    expect(insufficient).toHaveLength(900);
    // Each successful debit saw a distinct balance from 99 down to 0: no credit was taken twice.
    const balancesAfter = debited
      .map((reply) => ("balance" in reply ? reply.balance : -1))
      .sort((a, b) => a - b);
    expect(balancesAfter).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(insufficient.every((reply) => "balance" in reply && reply.balance === 0)).toBe(true);
    expect(await balanceOf(h, created)).toBe(0);
    expect(await journalTypes(h, id)).toEqual({ grant: 1, debit: 100 });
    const report = await verify(h);
    expect(report.ok).toBe(true);
    expect(report.mismatches).toEqual([]);
  });

  it("returns insufficient and changes nothing when the balance is 0", async () => {
    const created = await createKey(h, { credits: 0 });
    const { id } = created;
    expect(await debit(h, created)).toMatchObject({ outcome: "insufficient", balance: 0 });
    expect(await balanceOf(h, created)).toBe(0);
    expect(await journalTypes(h, id)).toEqual({ grant: 1 });
  });

  it("debits once and returns the earlier result when the same request id is debited again", async () => {
    const created = await createKey(h, { credits: 10 });
    const requestId = newRequestId();
    const first = await debit(h, created, requestId);
    const again = await Promise.all([debit(h, created, requestId), debit(h, created, requestId)]);
    expect(first).toMatchObject({ outcome: "admitted", balance: 9 });
    expect(again.map((reply) => reply.outcome === "admitted" && reply.balance)).toEqual([9, 9]);
    // The retry is answered in full, with the month's figures and the low-balance line as the first.
    for (const reply of again)
      expect(reply).toMatchObject({
        month_spend: { spent: 1, cap: null },
        low_balance_threshold: 100,
        low_balance_round: 0,
      });
    expect(await balanceOf(h, created)).toBe(9);
  });

  it("answers unknown_key for a key id that does not exist", async () => {
    expect(await debit(h, { id: "key_0000000000000000", key: `rdk_${"x".repeat(43)}` })).toEqual({
      outcome: "unknown_key",
    });
  });

  it("reads the balance fresh from Redis after every change", async () => {
    const created = await createKey(h);
    expect(await balanceOf(h, created)).toBe(333);
    await debit(h, created);
    expect(await balanceOf(h, created)).toBe(332);
  });

  it("reports a mismatch when a balance was changed without a journal entry", async () => {
    const created = await createKey(h, { credits: 5 });
    const { id } = created;
    await h.redis.hincrby(h.keys.keyRecord(id), "balance", 7);
    const report = await verify(h);
    expect(report.ok).toBe(false);
    expect(report.mismatches).toContainEqual(
      expect.objectContaining({ key_id: id, balance: 12, journal_sum: 5 }),
    );
    await h.redis.hincrby(h.keys.keyRecord(id), "balance", -7);
    expect((await verify(h)).ok).toBe(true);
  });
});
