/**
 * Monthly spend caps (docs/api.md#spend-caps): decided in the admission script with the balance, so
 * a cap is exact however many admissions race for its last credits on however many billing
 * replicas; a refused admission takes nothing; refunds give spend back; the month is the calendar
 * month (UTC) of billing's clock, which this test moves across a month's end.
 */
import { refundReplySchema, setSpendCapReplySchema, showKeyReplySchema } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness } from "./harness.ts";
import { admit, balanceOf, createKey, debitWork, newRequestId, verify } from "./ops.ts";

let clock = Date.parse("2026-01-31T23:59:58Z");
let h: Harness;
beforeAll(async () => {
  h = await startHarness("spend-caps", undefined, { now: () => clock });
  await h.start(); // a second replica: admissions are spread over both by the queue group
});
afterAll(async () => h.close());

const setCap = (id: string, monthly_cap: number | null, account_id?: string) =>
  h.request(h.subjects.billing.setSpendCap, { id, monthly_cap, account_id }, setSpendCapReplySchema);
const unlimitedRate = { qps: 100_000, burst: 1_000_000 };
const refund = (keyId: string, requestId: string) =>
  h.request(
    h.subjects.billing.refund,
    { key_id: keyId, request_id: requestId, reason: "upstream_unavailable" },
    refundReplySchema,
  );

describe("a monthly spend cap", () => {
  // 300 at once is a race for the cap's last credits on both replicas; the thousand-request race
  // through two gateways is test/e2e/spend-caps.test.ts.
  it("admits exactly 50 of 300 concurrent one-credit admissions under a 50-credit cap, and refuses the rest uncharged", async () => {
    const key = await createKey(h, { credits: 1_000, rate_limit: unlimitedRate });
    expect(await setCap(key.id, 50)).toEqual({
      outcome: "set",
      month_spend: { month: "2026-01", spent: 0, cap: 50 },
    });
    const replies = await Promise.all(Array.from({ length: 300 }, () => admit(h, key)));
    const outcomes = replies.map((reply) => reply.outcome);
    expect(outcomes.filter((outcome) => outcome === "admitted")).toHaveLength(50);
    expect(outcomes.filter((outcome) => outcome === "spend_cap_reached")).toHaveLength(250);
    const refusal = replies.find((reply) => reply.outcome === "spend_cap_reached");
    expect(refusal).toMatchObject({ balance: 950, month_spend: { month: "2026-01", spent: 50, cap: 50 } });
    expect(await balanceOf(h, key)).toBe(950);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, debit: 50 });
    expect((await verify(h)).ok).toBe(true);
  });

  it("gets a refunded credit back into the month's spend, so one more request is admitted", async () => {
    const key = await createKey(h, { credits: 100, rate_limit: unlimitedRate });
    await setCap(key.id, 2);
    const first = newRequestId();
    expect((await admit(h, key, { requestId: first })).outcome).toBe("admitted");
    expect((await admit(h, key)).outcome).toBe("admitted");
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect((await refund(key.id, first)).outcome).toBe("refunded");
    expect(await admit(h, key)).toMatchObject({
      outcome: "admitted",
      balance: 98,
      month_spend: { spent: 2, cap: 2 },
    });
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect((await verify(h)).ok).toBe(true);
  });

  it("counts an export job's pages like requests: a page past the cap is refused uncharged, a refunded one gives its credit back", async () => {
    const key = await createKey(h, { credits: 100, rate_limit: unlimitedRate });
    await setCap(key.id, 2);
    const page = (n: number) => debitWork(h, key.id, `exp_${"0".repeat(24)}.p${n}.a0`);
    expect((await admit(h, key)).outcome).toBe("admitted");
    expect(await page(1)).toEqual({ outcome: "debited", balance: 98 });
    expect(await page(2)).toMatchObject({
      outcome: "spend_cap_reached",
      balance: 98,
      month_spend: { spent: 2, cap: 2 },
    });
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect((await refund(key.id, `exp_${"0".repeat(24)}.p1.a0`)).outcome).toBe("refunded");
    expect(await page(2)).toEqual({ outcome: "debited", balance: 98 });
    expect(await balanceOf(h, key)).toBe(98);
    expect((await verify(h)).ok).toBe(true);
  });

  it("shows the cap and the month's spend with the key, and is removed with null", async () => {
    const key = await createKey(h, { credits: 10, rate_limit: unlimitedRate });
    await setCap(key.id, 1);
    await admit(h, key);
    const shown = await h.request(h.subjects.billing.showKey, { id: key.id }, showKeyReplySchema);
    expect(shown.found && shown.key.month_spend).toEqual({ month: "2026-01", spent: 1, cap: 1 });
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect(await setCap(key.id, null)).toEqual({
      outcome: "set",
      month_spend: { month: "2026-01", spent: 1, cap: null },
    });
    expect(await admit(h, key)).toMatchObject({ outcome: "admitted", month_spend: { spent: 2, cap: null } });
  });

  it("is another account's key's business only: an account names only its own keys", async () => {
    const key = await createKey(h, { account_id: "acct_spendcapowner001" });
    const other = h.subjects.billing.setAccountSpendCap;
    expect(
      await h.request(
        other,
        { id: key.id, account_id: "acct_someoneelse00001", monthly_cap: 5 },
        setSpendCapReplySchema,
      ),
    ).toEqual({ outcome: "not_found" });
    expect(
      await h.request(
        other,
        { id: key.id, account_id: "acct_spendcapowner001", monthly_cap: 5 },
        setSpendCapReplySchema,
      ),
    ).toMatchObject({ outcome: "set" });
    await expect(h.request(other, { id: key.id, monthly_cap: 5 }, setSpendCapReplySchema)).rejects.toThrow(
      /account_id/,
    );
    await expect(setCap(key.id, 0)).rejects.toThrow(/monthly_cap/);
  });

  it("resets at the month's end: a key at its cap on January 31 is admitted on February 1, and a late refund of January gives back January's spend", async () => {
    const key = await createKey(h, { credits: 10, rate_limit: unlimitedRate });
    await setCap(key.id, 1);
    const january = newRequestId();
    expect((await admit(h, key, { requestId: january })).outcome).toBe("admitted");
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    clock = Date.parse("2026-02-01T00:00:00Z");
    expect(await admit(h, key)).toMatchObject({
      outcome: "admitted",
      month_spend: { month: "2026-02", spent: 1, cap: 1 },
    });
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect((await refund(key.id, january)).outcome).toBe("refunded");
    expect(await h.redis.hgetall(h.keys.monthlySpend(key.id))).toEqual({ "2026-01": "0", "2026-02": "1" });
    expect((await admit(h, key)).outcome).toBe("spend_cap_reached");
    expect((await verify(h)).ok).toBe(true);
  });

  it("is re-derived from the journal by `ledger verify`: clean after the traffic above, a tampered counter reported by key and month", async () => {
    const clean = await verify(h);
    expect(clean.ok).toBe(true);
    expect(clean.mismatches).toEqual([]);
    const key = await createKey(h, { credits: 10, rate_limit: unlimitedRate });
    await setCap(key.id, 5);
    await admit(h, key);
    expect((await verify(h)).ok).toBe(true);
    // Someone lowers the counter the cap is checked against (a key would then spend past its cap).
    await h.redis.hincrby(h.keys.monthlySpend(key.id), "2026-02", -1);
    const tampered = await verify(h);
    expect(tampered.ok).toBe(false);
    expect(tampered.mismatches).toEqual([
      {
        key_id: key.id,
        balance: 9,
        journal_sum: 9,
        problem: "the monthly spend of 2026-02 is 0, the journal says 1",
      },
    ]);
    await h.redis.hincrby(h.keys.monthlySpend(key.id), "2026-02", 1);
    expect((await verify(h)).ok).toBe(true);
  });
});
