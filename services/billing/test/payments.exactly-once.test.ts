/**
 * Card payments in billing, over NATS as the portal asks: each payment credited once however often
 * and by however many replicas it is applied, refunds and disputes taking back what the balance
 * allows, in any order, all journaled with the payment id.
 */
import { randomBytes } from "node:crypto";
import {
  type ApplyPaymentRequest,
  applyPaymentReplySchema,
  listPaymentsReplySchema,
  type ReversePaymentRequest,
  reversePaymentReplySchema,
} from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, balanceOf, createKey, verify } from "./ops.ts";

const newAccount = () => `acct_${randomBytes(8).toString("hex")}`;
const newPayment = () => `pi_${randomBytes(12).toString("hex")}`;

describe("card payments in the ledger", () => {
  let h: Harness;
  beforeAll(async () => {
    // Every account key starts with the free grant; 50 keeps the figures readable.
    h = await startHarness("payments", { ...TEST_SETTINGS, freeCredits: 50 });
  });
  afterAll(() => h.close());

  async function paidKey() {
    const account = newAccount();
    const key = await createKey(h, { account_id: account });
    return { ...key, account };
  }
  const apply = (key: { id: string; account: string }, paymentId: string, cents: number) => {
    const request: ApplyPaymentRequest = {
      payment_id: paymentId,
      key_id: key.id,
      account_id: key.account,
      checkout_session_id: `cs_test_${paymentId.slice(3)}`,
      amount_cents: cents,
      currency: "usd",
      paid_at: Math.floor(Date.now() / 1000),
      receipt_url: "https://pay.example/receipts/1",
    };
    return h.request(h.subjects.billing.applyPayment, request, applyPaymentReplySchema);
  };
  const reverse = (
    key: { id: string; account: string },
    paymentId: string,
    kind: ReversePaymentRequest["kind"],
    cents: number,
  ) =>
    h.request(
      h.subjects.billing.reversePayment,
      { payment_id: paymentId, key_id: key.id, account_id: key.account, kind, amount_cents: cents },
      reversePaymentReplySchema,
    );
  const payments = (filter: object) =>
    h.request(h.subjects.billing.listPayments, filter, listPaymentsReplySchema).then((r) => r.payments);

  it("credits a payment once when it is applied 3 times and 10 more at once by two billing replicas", async () => {
    const key = await paidKey();
    const paymentId = newPayment();
    await h.start();
    const replies = [await apply(key, paymentId, 2_500), await apply(key, paymentId, 2_500)];
    replies.push(...(await Promise.all(Array.from({ length: 10 }, () => apply(key, paymentId, 2_500)))));
    replies.push(await apply(key, paymentId, 2_500));
    expect(replies.filter((r) => r.outcome === "applied")).toHaveLength(1);
    expect(replies[0]).toEqual({ outcome: "applied", credits: 19_230, credits_removed: 0, balance: 19_280 });
    expect(replies.at(-1)).toEqual({
      outcome: "already_applied",
      credits: 19_230,
      credits_removed: 0,
      balance: 19_280,
    });
    expect(await balanceOf(h, key)).toBe(19_280);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, topup: 1 });
    const [, last] = (await h.redis.xrevrange(h.keys.journal(key.id), "+", "-", "COUNT", 1))[0]!;
    expect(last).toEqual(
      expect.arrayContaining(["type", "topup", "delta", "19230", "request_id", paymentId]),
    );
  });

  it("takes back min(credits bought, balance) on a full refund after part was spent, never below 0", async () => {
    const key = await paidKey();
    const paymentId = newPayment();
    await apply(key, paymentId, 500);
    expect((await admit(h, key, { credits: 100 })).outcome).toBe("admitted");
    expect(await reverse(key, paymentId, "refund", 500)).toEqual({
      outcome: "reversed",
      credits_removed: 3_283,
      balance: 0,
    });
    // A redelivery takes nothing more, and names what the reversal did (for its notice, if unsent).
    expect(await reverse(key, paymentId, "refund", 500)).toEqual({
      outcome: "unchanged",
      credits_removed: 0,
      balance: 0,
      applied: { credits_removed: 3_283, balance: 0 },
    });
    expect(await reverse(key, paymentId, "dispute", 500)).toMatchObject({ credits_removed: 0, balance: 0 });
    const [payment] = await payments({ key_id: key.id });
    expect(payment).toMatchObject({ status: "disputed", credits: 3_333, credits_removed: 3_283 });
  });

  it("applies cumulative partial refunds once each, whatever their order and copies", async () => {
    const key = await paidKey();
    const paymentId = newPayment();
    await apply(key, paymentId, 2_500);
    expect(await reverse(key, paymentId, "refund", 1_000)).toMatchObject({ credits_removed: 7_692 });
    const older = await reverse(key, paymentId, "refund", 500);
    expect(older).toMatchObject({ outcome: "unchanged" });
    expect(older).not.toHaveProperty("applied");
    expect(await reverse(key, paymentId, "refund", 1_000)).toMatchObject({
      outcome: "unchanged",
      credits_removed: 0,
      applied: { credits_removed: 7_692 },
    });
    const [partial] = await payments({ key_id: key.id });
    expect(partial).toMatchObject({ status: "partially_refunded", refunded_cents: 1_000 });
    expect(await reverse(key, paymentId, "refund", 2_500)).toMatchObject({
      credits_removed: 19_230 - 7_692,
      balance: 50,
    });
    expect((await payments({ key_id: key.id }))[0]).toMatchObject({
      status: "refunded",
      credits_removed: 19_230,
    });
  });

  it("keeps a refund that arrives before its payment and applies both when the payment comes", async () => {
    const key = await paidKey();
    const paymentId = newPayment();
    expect(await reverse(key, paymentId, "refund", 2_500)).toEqual({
      outcome: "recorded",
      credits_removed: 0,
      balance: 50,
    });
    expect((await payments({ key_id: key.id }))[0]).toMatchObject({ status: "pending", paid_at: null });
    expect(await apply(key, paymentId, 2_500)).toEqual({
      outcome: "applied",
      credits: 19_230,
      credits_removed: 19_230,
      balance: 50,
    });
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1, topup: 1, payment_reversal: 1 });
  });

  it("takes back the rest of a partly refunded payment when it is disputed", async () => {
    const key = await paidKey();
    const paymentId = newPayment();
    await apply(key, paymentId, 10_000);
    await reverse(key, paymentId, "refund", 4_000);
    expect(await reverse(key, paymentId, "dispute", 6_000)).toEqual({
      outcome: "reversed",
      credits_removed: 60_000,
      balance: 50,
    });
  });

  it("answers not_found for another account's key and credits nothing", async () => {
    const key = await paidKey();
    const stranger = { id: key.id, account: newAccount() };
    expect(await apply(stranger, newPayment(), 2_500)).toEqual({ outcome: "not_found" });
    expect(await reverse(stranger, newPayment(), "refund", 2_500)).toEqual({ outcome: "not_found" });
    expect(await balanceOf(h, key)).toBe(50);
  });

  it("lists an account's payments over all its keys, newest first, and leaves the ledger verified", async () => {
    const first = await paidKey();
    const second = {
      ...(await createKey(h, { account_id: first.account })),
      account: first.account,
    };
    const [older, newer] = [newPayment(), newPayment()];
    await apply(first, older, 500);
    // The history orders by the millisecond each payment was first seen: the newer one comes later.
    const olderSeenBy = Date.now();
    await waitFor(() => Date.now() > olderSeenBy, "a later millisecond");
    await apply(second, newer, 5_000);
    const listed = await payments({ account_id: first.account });
    expect(listed.map((p) => [p.payment_id, p.key_id, p.credits, p.status])).toEqual([
      [newer, second.id, 41_666, "paid"],
      [older, first.id, 3_333, "paid"],
    ]);
    expect(listed[0]).toMatchObject({ amount_cents: 5_000, receipt_url: "https://pay.example/receipts/1" });
    expect(await verify(h)).toMatchObject({ ok: true, mismatches: [] });
  });
});
