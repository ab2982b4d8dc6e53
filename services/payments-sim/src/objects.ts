/**
 * The API objects the simulator serves, in Stripe's shapes. Each is typed as a selection of the
 * `stripe` SDK's own type, so a field the simulator serves has Stripe's name and type; fields the
 * portal never reads are left out, as an older API version would.
 */
import type Stripe from "stripe";

/** The API version of the pinned SDK; events are rendered in it. */
export const API_VERSION = "2026-10-28.endive";

export type CheckoutSession = Pick<
  Stripe.Checkout.Session,
  | "id"
  | "object"
  | "amount_subtotal"
  | "amount_total"
  | "cancel_url"
  | "client_reference_id"
  | "created"
  | "currency"
  | "customer"
  | "customer_email"
  | "expires_at"
  | "invoice"
  | "livemode"
  | "locale"
  | "metadata"
  | "mode"
  | "payment_intent"
  | "payment_method_types"
  | "payment_status"
  | "setup_intent"
  | "status"
  | "submit_type"
  | "subscription"
  | "success_url"
  | "ui_mode"
  | "url"
>;

export type PaymentIntent = Pick<
  Stripe.PaymentIntent,
  | "id"
  | "object"
  | "amount"
  | "amount_received"
  | "canceled_at"
  | "cancellation_reason"
  | "capture_method"
  | "client_secret"
  | "confirmation_method"
  | "created"
  | "currency"
  | "customer"
  | "description"
  | "last_payment_error"
  | "livemode"
  | "metadata"
  | "payment_method_types"
  | "receipt_email"
  | "status"
> & { latest_charge: string | Charge | null };

export type Charge = Pick<
  Stripe.Charge,
  | "id"
  | "object"
  | "amount"
  | "amount_captured"
  | "amount_refunded"
  | "balance_transaction"
  | "captured"
  | "created"
  | "currency"
  | "customer"
  | "description"
  | "disputed"
  | "failure_code"
  | "failure_message"
  | "livemode"
  | "metadata"
  | "paid"
  | "payment_intent"
  | "receipt_email"
  | "receipt_url"
  | "refunded"
  | "status"
>;

export type Refund = Pick<
  Stripe.Refund,
  | "id"
  | "object"
  | "amount"
  | "charge"
  | "created"
  | "currency"
  | "metadata"
  | "payment_intent"
  | "reason"
  | "status"
>;

export type Dispute = Pick<
  Stripe.Dispute,
  | "id"
  | "object"
  | "amount"
  | "charge"
  | "created"
  | "currency"
  | "is_charge_refundable"
  | "livemode"
  | "metadata"
  | "payment_intent"
  | "reason"
  | "status"
>;

export type EventType = Stripe.Event.Type;

export interface StripeEvent {
  readonly id: string;
  readonly object: "event";
  readonly api_version: string;
  readonly created: number;
  readonly data: { readonly object: unknown; readonly previous_attributes?: Record<string, unknown> };
  readonly livemode: false;
  readonly pending_webhooks: number;
  readonly request: { readonly id: string | null; readonly idempotency_key: string | null };
  readonly type: EventType;
}

/** An object as it is at this moment: events carry snapshots, never live references. */
export function snapshot<T>(object: T): T {
  return structuredClone(object);
}
