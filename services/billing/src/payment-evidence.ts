/**
 * The proof behind a card payment request. The developer portal verifies every Stripe delivery,
 * but the ledger's only writer does not take a caller's word for money: when billing holds the
 * webhook secret (STRIPE_WEBHOOK_SECRET), a payment or a reversal is applied only with the event
 * that Stripe signed, and only if that event says what the request says. Whoever can reach
 * billing's subjects (a compromised portal included) then cannot credit a payment that was never
 * made, nor inflate one. Replaying a genuine event changes nothing: billing applies each payment
 * and each cumulative reversal once.
 */
import {
  type ApplyPaymentRequest,
  err,
  expandableId,
  ok,
  type Result,
  type ReversePaymentRequest,
  type SignedEvent,
} from "@rda/contracts";
import Stripe from "stripe";

/** Stripe's own default tolerance: an event signed more than five minutes ago is a replay. */
const TOLERANCE_SECONDS = 300;

/** Proven, or the reason the request does not match what Stripe signed. */
export type Evidence = Result<true, string>;

const refused = (reason: string): Evidence => err(reason);
const PROVEN: Evidence = ok(true);

/** Does the signed event show this payment, paid in full, for this key of this account? */
export function paymentEvidence(secret: string, request: ApplyPaymentRequest): Evidence {
  const event = verifiedEvent(secret, request.signed_event);
  if ("ok" in event) return event;
  const paidSession =
    (event.type === "checkout.session.completed" && event.data.object.payment_status === "paid") ||
    event.type === "checkout.session.async_payment_succeeded";
  if (!paidSession) return refused(`a ${event.type} event does not prove a payment`);
  const session = event.data.object as Stripe.Checkout.Session;
  const mismatch = firstMismatch([
    ["checkout_session_id", session.id, request.checkout_session_id],
    ["payment_id", expandableId(session.payment_intent), request.payment_id],
    ["amount_cents", session.amount_total, request.amount_cents],
    ["currency", session.currency, request.currency],
    ["key_id", session.metadata?.key_id, request.key_id],
    ["account_id", session.metadata?.account_id, request.account_id],
  ]);
  return mismatch ?? PROVEN;
}

/** Does the signed event show this much of this payment refunded (or disputed)? */
export function reversalEvidence(secret: string, request: ReversePaymentRequest): Evidence {
  const event = verifiedEvent(secret, request.signed_event);
  if ("ok" in event) return event;
  if (request.kind === "refund" && event.type === "charge.refunded") {
    const charge = event.data.object;
    return (
      firstMismatch([
        ["payment_id", expandableId(charge.payment_intent), request.payment_id],
        ["amount_cents", charge.amount_refunded, request.amount_cents],
      ]) ?? PROVEN
    );
  }
  if (request.kind === "dispute" && event.type === "charge.dispute.created") {
    const dispute = event.data.object;
    return (
      firstMismatch([
        ["payment_id", expandableId(dispute.payment_intent), request.payment_id],
        ["amount_cents", dispute.amount, request.amount_cents],
      ]) ?? PROVEN
    );
  }
  return refused(`a ${event.type} event does not prove a ${request.kind}`);
}

function verifiedEvent(secret: string, signed: SignedEvent | undefined): Stripe.Event | Evidence {
  if (!signed) return refused("no signed event came with the request");
  try {
    return Stripe.webhooks.constructEvent(signed.payload, signed.signature, secret, TOLERANCE_SECONDS);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return refused(`the event's signature does not verify: ${detail}`);
  }
}

function firstMismatch(fields: [name: string, signed: unknown, requested: unknown][]): Evidence | undefined {
  const differing = fields.find(([, signed, requested]) => signed !== requested);
  return differing && refused(`${differing[0]} differs from the signed event`);
}
