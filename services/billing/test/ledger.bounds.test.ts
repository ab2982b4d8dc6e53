/**
 * Billing distrusts what arrives over NATS: amounts past their bounds are refused with a clear error
 * and counted, nothing reaches the ledger, and `ledger verify` stays ok. Asked as any caller would,
 * through NATS.
 */
import { randomBytes } from "node:crypto";
import { createKeyReplySchema, refundReplySchema, settleReplySchema, topUpReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness, TEST_SETTINGS } from "./harness.ts";
import { balanceOf, createKey, debit, newRequestId, topUp, verify } from "./ops.ts";

/** Low enough to reach with two 5 USD top-ups (3,333 credits each) on top of the free 333. */
const MAX_BALANCE = 5_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness("bounds", { ...TEST_SETTINGS, maxBalance: MAX_BALANCE });
});
afterAll(() => h.close());

/** A request billing must refuse: the failure, as the caller sees it. */
async function refusal(subject: string, payload: unknown) {
  const answer = await requestJson(h.nats, subject, payload, topUpReplySchema, 15_000);
  if (answer.ok) throw new Error(`accepted: ${JSON.stringify(answer.value)}`);
  return answer.error;
}

describe("billing bounds", () => {
  it("refuses a top-up of 9007199254740991 cents with a clear error, counted, balance and ledger untouched", async () => {
    const key = await createKey(h);
    const subject = h.subjects.billing.topUp;
    const refusedBefore = await h.metric("billing_requests_refused_total", { subject });

    const failure = await refusal(subject, {
      id: key.id,
      usd_cents: 9_007_199_254_740_991,
      request_id: newRequestId(),
    });

    expect(failure).toMatchObject({ kind: "service_error", code: 400 });
    expect(failure.message).toMatch(/usd_cents: one top-up is at most 1000000 US cents/);
    expect(await balanceOf(h, key)).toBe(333);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1 });
    expect(await h.metric("billing_requests_refused_total", { subject })).toBe(refusedBefore + 1);
    expect(h.logLines()).toMatch(/"msg":"request refused"/);
    expect(await verify(h)).toMatchObject({ ok: true, mismatches: [] });
  });

  it("refuses the top-up that would take a balance past the most it may hold, adding nothing", async () => {
    const key = await createKey(h);
    expect(await topUp(h, key.id, 500)).toEqual({
      outcome: "ok",
      credits_added: 3_333,
      credits_balance: 3_666,
    });

    const refused = await topUp(h, key.id, 500);

    expect(refused).toEqual({ outcome: "balance_limit", max_balance: MAX_BALANCE, credits_balance: 3_666 });
    expect(await balanceOf(h, key)).toBe(3_666);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, topup: 1 });
    expect(await h.metric("billing_topups_total", { outcome: "balance_limit" })).toBe(1);
    expect((await verify(h)).ok).toBe(true);
  });

  it("refuses key creation past the credits cap, and credits or limits on a portal account's key", async () => {
    const create = (request: unknown) =>
      requestJson(h.nats, h.subjects.billing.createKey, request, createKeyReplySchema, 15_000);
    const tooMany = await create({ credits: 9_007_199_254_740_991 });
    expect(tooMany).toMatchObject({ ok: false, error: { kind: "service_error", code: 400 } });
    if (!tooMany.ok) expect(tooMany.error.message).toMatch(/credits: Too big/);

    const account = `acct_${randomBytes(8).toString("hex")}`;
    const minted = await create({ account_id: account, credits: 1_000_000 });
    expect(minted).toMatchObject({ ok: false, error: { kind: "service_error", code: 400 } });
    if (!minted.ok) expect(minted.error.message).toMatch(/credits are set only on an operator's key/);
    const faster = await create({ account_id: account, rate_limit: { qps: 1_000 } });
    expect(faster).toMatchObject({ ok: false, error: { kind: "service_error", code: 400 } });

    const granted = await createKey(h, { account_id: account });
    expect(granted.credits).toBe(TEST_SETTINGS.freeCredits);
  });

  it("gives nothing back for a refund or settlement of a debit it never recorded, and counts it as expired", async () => {
    const key = await createKey(h);
    const recorded = newRequestId();
    await debit(h, key, recorded);
    const forged = { key_id: key.id, request_id: newRequestId(), reason: "upstream_unavailable" };
    const unknownRefunds = await h.metric("billing_refunds_total", { outcome: "expired" });

    const refund = await h.request(h.subjects.billing.refund, forged, refundReplySchema);
    const settled = await h.request(
      h.subjects.billing.settle,
      { debits: [{ key_id: key.id, request_id: newRequestId() }] },
      settleReplySchema,
    );

    expect(refund).toEqual({ outcome: "expired", balance: 332 });
    expect(settled).toEqual({ settled: 0, ignored: 1, ends: ["expired"] });
    expect(await h.metric("billing_refunds_total", { outcome: "expired" })).toBe(unknownRefunds + 1);
    expect(await h.metric("billing_settlements_total", { outcome: "expired" })).toBe(1);
    expect(await balanceOf(h, key)).toBe(332);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, debit: 1 });
    expect((await verify(h)).ok).toBe(true);
  });
});
