/**
 * The notices of card payments, as the Stripe webhook route hands them over: a receipt once a
 * payment is credited, a notice when money goes back (refund or dispute), and one when a payment
 * failed. Each is named by its payment, so a re-delivered event, or one seen by two replicas, sends
 * nothing twice.
 */
import type { Notice } from "./notice-kinds.ts";

const usd = (cents: number) => `${(cents / 100).toFixed(2)} USD`;
const credits = (n: number) => `${n.toLocaleString("en-US")} credits`;

export function receiptNotice(payment: {
  paymentId: string;
  keyId: string;
  amountCents: number;
  credits: number;
  balance: number;
  receiptUrl: string | null;
  portalUrl: string;
}): Notice {
  return {
    kind: "payment_succeeded",
    crossing: payment.paymentId,
    subject: `Receipt: ${usd(payment.amountCents)} for ${credits(payment.credits)}`,
    paragraphs: [
      `Thank you for your payment of ${usd(payment.amountCents)}.`,
      `${credits(payment.credits)} were added to your key ${payment.keyId}; its balance is now ${credits(payment.balance)}.`,
      `Payment id: ${payment.paymentId}.`,
    ],
    link: payment.receiptUrl
      ? { text: "Your card receipt", url: payment.receiptUrl }
      : { text: "Your payments", url: `${payment.portalUrl}/billing` },
    data: {
      payment_id: payment.paymentId,
      key_id: payment.keyId,
      amount_cents: payment.amountCents,
      currency: "usd",
      credits: payment.credits,
      balance: payment.balance,
      receipt_url: payment.receiptUrl,
    },
  };
}

export function reversalNotice(reversal: {
  paymentId: string;
  keyId: string;
  kind: "refund" | "dispute";
  amountCents: number;
  creditsRemoved: number;
  balance: number;
  portalUrl: string;
}): Notice {
  const what = reversal.kind === "refund" ? "refunded" : "disputed";
  return {
    kind: "payment_reversed",
    crossing: `${reversal.paymentId}:${reversal.kind}:${reversal.amountCents}`,
    subject: `A payment was ${what}: ${usd(reversal.amountCents)}`,
    paragraphs: [
      `${usd(reversal.amountCents)} of your payment ${reversal.paymentId} was ${what}.`,
      `${credits(reversal.creditsRemoved)} it bought were taken back from your key ${reversal.keyId}; its balance is now ${credits(reversal.balance)}.`,
    ],
    link: { text: "Your payments", url: `${reversal.portalUrl}/billing` },
    data: {
      payment_id: reversal.paymentId,
      key_id: reversal.keyId,
      kind: reversal.kind,
      amount_cents: reversal.amountCents,
      credits_removed: reversal.creditsRemoved,
      balance: reversal.balance,
    },
  };
}

export function paymentFailedNotice(failure: {
  sessionId: string;
  keyId: string;
  amountCents: number;
  portalUrl: string;
}): Notice {
  return {
    kind: "payment_failed",
    crossing: failure.sessionId,
    subject: `Your payment of ${usd(failure.amountCents)} did not go through`,
    paragraphs: [
      `Your payment of ${usd(failure.amountCents)} for key ${failure.keyId} failed; nothing was charged and no credits were added.`,
      "You can try again with another card or payment method.",
    ],
    link: { text: "Buy credits", url: `${failure.portalUrl}/billing?key=${failure.keyId}` },
    data: {
      checkout_session_id: failure.sessionId,
      key_id: failure.keyId,
      amount_cents: failure.amountCents,
    },
  };
}
