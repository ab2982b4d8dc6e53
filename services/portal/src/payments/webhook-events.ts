/**
 * What a verified Stripe event means for the ledger: a payment to credit, money going back, or
 * nothing for us. Pure: the webhook route does the asking. Only events of payments this portal
 * started are acted on (their ids and metadata have our shapes); anything else is acknowledged and
 * left alone, so Stripe stops re-sending it.
 */
import {
  ACCOUNT_ID_PATTERN,
  type ApplyPaymentRequest,
  CHECKOUT_SESSION_ID_PATTERN,
  expandableId,
  KEY_ID_PATTERN,
  PAYMENT_ID_PATTERN,
} from "@rda/contracts";
import type Stripe from "stripe";

export type WebhookAction =
  | { readonly kind: "apply"; readonly payment: ApplyPaymentRequest }
  | {
      readonly kind: "reverse";
      readonly paymentId: string;
      readonly reversal: "refund" | "dispute";
      /** Cumulative: the charge's `amount_refunded`, or the dispute's amount. */
      readonly amountCents: number;
      readonly receiptUrl: string | null;
    }
  /** A delayed payment method failed: nothing to credit, the account is told. */
  | {
      readonly kind: "failed";
      readonly sessionId: string;
      readonly keyId: string;
      readonly accountId: string;
      readonly amountCents: number;
    }
  | { readonly kind: "ignore"; readonly reason: string };

const ignore = (reason: string): WebhookAction => ({ kind: "ignore", reason });

export function actionFor(event: Stripe.Event): WebhookAction {
  switch (event.type) {
    case "checkout.session.completed":
      // `unpaid`: a delayed method (a bank debit) is still on its way; async_payment_succeeded follows.
      if (event.data.object.payment_status !== "paid") return ignore("the payment is not complete yet");
      return applyFor(event.data.object, event.created);
    case "checkout.session.async_payment_succeeded":
      return applyFor(event.data.object, event.created);
    case "checkout.session.async_payment_failed":
      return failedFor(event.data.object);
    case "charge.refunded":
      return reverseFor(
        event.data.object.payment_intent,
        "refund",
        event.data.object.amount_refunded,
        event.data.object.receipt_url,
      );
    case "charge.dispute.created":
      return reverseFor(event.data.object.payment_intent, "dispute", event.data.object.amount, null);
    default:
      return ignore(`no action for ${event.type}`);
  }
}

function applyFor(session: Stripe.Checkout.Session, created: number): WebhookAction {
  const paymentId = expandableId(session.payment_intent);
  const { account_id: accountId = "", key_id: keyId = "" } = session.metadata ?? {};
  if (session.mode !== "payment" || !paymentId || !PAYMENT_ID_PATTERN.test(paymentId))
    return ignore("not a one-off payment");
  if (
    !KEY_ID_PATTERN.test(keyId) ||
    !ACCOUNT_ID_PATTERN.test(accountId) ||
    !CHECKOUT_SESSION_ID_PATTERN.test(session.id)
  )
    return ignore("not a session this portal started");
  if (session.currency !== "usd" || !Number.isSafeInteger(session.amount_total))
    return ignore(`an amount in ${session.currency} cannot buy credits`);
  return {
    kind: "apply",
    payment: {
      payment_id: paymentId,
      key_id: keyId,
      account_id: accountId,
      checkout_session_id: session.id,
      amount_cents: session.amount_total!,
      currency: "usd",
      paid_at: created,
      receipt_url: null,
    },
  };
}

function reverseFor(
  intent: string | Stripe.PaymentIntent | null,
  reversal: "refund" | "dispute",
  amountCents: number,
  receiptUrl: string | null,
): WebhookAction {
  const paymentId = expandableId(intent);
  if (!paymentId || !PAYMENT_ID_PATTERN.test(paymentId)) return ignore("not a payment of a PaymentIntent");
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) return ignore("no amount");
  return { kind: "reverse", paymentId, reversal, amountCents, receiptUrl };
}

function failedFor(session: Stripe.Checkout.Session): WebhookAction {
  const { account_id: accountId = "", key_id: keyId = "" } = session.metadata ?? {};
  if (
    !KEY_ID_PATTERN.test(keyId) ||
    !ACCOUNT_ID_PATTERN.test(accountId) ||
    !CHECKOUT_SESSION_ID_PATTERN.test(session.id)
  )
    return ignore("not a session this portal started");
  return { kind: "failed", sessionId: session.id, keyId, accountId, amountCents: session.amount_total ?? 0 };
}
