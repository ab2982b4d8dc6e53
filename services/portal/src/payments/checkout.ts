/**
 * Starting a payment: one Stripe Checkout Session for one key and one amount, in integer cents. The
 * session names the account and the key (`client_reference_id`, and `metadata` on the session and
 * on its PaymentIntent, where refunds and disputes find them); what is credited is decided later
 * by billing from the amount actually paid, never from these.
 */
import { creditsForCents } from "@rda/contracts";
import type Stripe from "stripe";

export interface CheckoutRequest {
  readonly accountId: string;
  readonly email: string;
  readonly key: { readonly id: string; readonly label: string };
  readonly cents: number;
  /** PORTAL_URL without a trailing slash. */
  readonly portalUrl: string;
}

export async function createCheckoutSession(stripe: Stripe, request: CheckoutRequest) {
  const { accountId, key, cents, portalUrl } = request;
  const credits = creditsForCents(cents) ?? 0;
  const owner = { account_id: accountId, key_id: key.id };
  return stripe.checkout.sessions.create({
    mode: "payment",
    submit_type: "pay",
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: "usd",
          unit_amount: cents,
          product_data: {
            name: `${credits.toLocaleString("en-US")} API credits`,
            description: `For the key ${key.label ? `"${key.label}" ` : ""}(${key.id}); each data request costs 1 credit.`,
          },
        },
      },
    ],
    client_reference_id: accountId,
    customer_email: request.email,
    metadata: owner,
    payment_intent_data: { metadata: owner, description: `API credits for ${key.id}` },
    // Stripe fills in {CHECKOUT_SESSION_ID}.
    success_url: `${portalUrl}/billing/return?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${portalUrl}/billing?key=${key.id}&done=canceled`,
  });
}
