/**
 * Billing holding the webhook secret: a card payment or a reversal moves credits only with the
 * event Stripe signed, and only as far as that event says. Whoever can reach billing over NATS (a
 * compromised portal) cannot credit a payment never made, nor inflate a real one.
 */
import { randomBytes } from "node:crypto";
import {
  type ApplyPaymentRequest,
  applyPaymentReplySchema,
  type ReversePaymentRequest,
  reversePaymentReplySchema,
} from "@rda/contracts";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, journalTypes, startHarness, TEST_SETTINGS } from "./harness.ts";
import { balanceOf, createKey } from "./ops.ts";

const SECRET = `whsec_${randomBytes(16).toString("hex")}`;
const FREE = 50;

/** A delivery as Stripe makes it: the event's JSON and its Stripe-Signature header. */
function signed(type: string, object: object, options: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify({
    id: `evt_${randomBytes(8).toString("hex")}`,
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? SECRET,
    timestamp: options.timestamp,
  });
  return { payload, signature };
}

describe("card payments proven by Stripe's signature", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("payments-signed", {
      ...TEST_SETTINGS,
      freeCredits: FREE,
      stripeWebhookSecret: SECRET,
    });
    await h.start();
  });
  afterAll(() => h.close());

  async function payment(cents: number) {
    const account = `acct_${randomBytes(8).toString("hex")}`;
    const key = await createKey(h, { account_id: account });
    const paymentId = `pi_${randomBytes(12).toString("hex")}`;
    const session = {
      id: `cs_test_${randomBytes(12).toString("hex")}`,
      object: "checkout.session",
      mode: "payment",
      payment_status: "paid",
      payment_intent: paymentId,
      amount_total: cents,
      currency: "usd",
      metadata: { key_id: key.id, account_id: account },
    };
    const request: ApplyPaymentRequest = {
      payment_id: paymentId,
      key_id: key.id,
      account_id: account,
      checkout_session_id: session.id,
      amount_cents: cents,
      currency: "usd",
      paid_at: Math.floor(Date.now() / 1000),
      receipt_url: null,
    };
    return { key, session, request };
  }
  const apply = (request: ApplyPaymentRequest) =>
    h.request(h.subjects.billing.applyPayment, request, applyPaymentReplySchema);
  const reverse = (request: ReversePaymentRequest) =>
    h.request(h.subjects.billing.reversePayment, request, reversePaymentReplySchema);

  it("credits a payment whose request matches the event Stripe signed", async () => {
    const { key, session, request } = await payment(2_500);
    const reply = await apply({ ...request, signed_event: signed("checkout.session.completed", session) });
    expect(reply).toEqual({
      outcome: "applied",
      credits: 19_230,
      credits_removed: 0,
      balance: FREE + 19_230,
    });
    expect(await balanceOf(h, key)).toBe(FREE + 19_230);
  });

  it("credits nothing without a signed event, with another secret's signature, or with a stale one", async () => {
    const { key, session, request } = await payment(2_500);
    const event = "checkout.session.completed";
    const attempts: [string, ApplyPaymentRequest][] = [
      ["no signed event", request],
      [
        "another secret",
        { ...request, signed_event: signed(event, session, { secret: "whsec_not_ours_123" }) },
      ],
      [
        "signed ten minutes ago",
        {
          ...request,
          signed_event: signed(event, session, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        },
      ],
    ];
    for (const [why, attempt] of attempts) {
      const reply = await apply(attempt);
      expect(reply.outcome, why).toBe("unverified");
    }
    expect(await balanceOf(h, key)).toBe(FREE);
    expect(await journalTypes(h, key.id)).toEqual({ grant: 1 });
  });

  it("credits nothing when the request says more, or another key, than the signed event", async () => {
    const { key, session, request } = await payment(500);
    const other = await createKey(h, { account_id: request.account_id });
    const signedEvent = signed("checkout.session.completed", session);
    const inflated = await apply({ ...request, amount_cents: 1_000_000, signed_event: signedEvent });
    expect(inflated).toEqual({ outcome: "unverified", reason: "amount_cents differs from the signed event" });
    const redirected = await apply({ ...request, key_id: other.id, signed_event: signedEvent });
    expect(redirected).toEqual({ outcome: "unverified", reason: "key_id differs from the signed event" });
    const unpaid = await apply({
      ...request,
      signed_event: signed("checkout.session.completed", { ...session, payment_status: "unpaid" }),
    });
    expect(unpaid.outcome).toBe("unverified");
    expect([await balanceOf(h, key), await balanceOf(h, other)]).toEqual([FREE, FREE]);
  });

  it("takes back a refund only as far as the signed refund event says", async () => {
    const { key, session, request } = await payment(2_500);
    await apply({ ...request, signed_event: signed("checkout.session.completed", session) });
    const charge = {
      id: "ch_1",
      object: "charge",
      payment_intent: request.payment_id,
      amount_refunded: 1_000,
    };
    const refund: ReversePaymentRequest = {
      payment_id: request.payment_id,
      key_id: key.id,
      account_id: request.account_id,
      kind: "refund",
      amount_cents: 2_500,
      signed_event: signed("charge.refunded", charge),
    };
    // Claiming the whole payment back on the strength of a partial refund's event.
    expect((await reverse(refund)).outcome).toBe("unverified");
    expect(await balanceOf(h, key)).toBe(FREE + 19_230);
    // A dispute's claim backed by a refund's event.
    const mislabelled = await reverse({ ...refund, kind: "dispute", amount_cents: 1_000 });
    expect(mislabelled.outcome).toBe("unverified");
    const genuine = await reverse({ ...refund, amount_cents: 1_000 });
    expect(genuine.outcome).toBe("reversed");
    expect(genuine).toMatchObject({ credits_removed: 7_692 });
    expect(await balanceOf(h, key)).toBe(FREE + 19_230 - 7_692);
  });
});
