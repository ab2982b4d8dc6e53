/**
 * The simulator's account: Checkout Sessions, PaymentIntents, Charges, Refunds and Disputes in
 * memory, moved through the states Stripe moves them through, each change announced as an event.
 * `onEvent` hands every event to the webhook deliverer.
 */

import type { CreateSessionParams } from "./api/params.ts";
import { epochSeconds, newId } from "./ids.ts";
import {
  API_VERSION,
  type Charge,
  type CheckoutSession,
  type Dispute,
  type EventType,
  type PaymentIntent,
  type Refund,
  type StripeEvent,
  snapshot,
} from "./objects.ts";

/** A Checkout Session stays open 24 hours, as Stripe's default. */
const SESSION_LIFETIME_S = 24 * 3_600;

export interface SessionRecord {
  readonly session: CheckoutSession;
  readonly productName: string;
  readonly intentMetadata: Record<string, string>;
  readonly intentDescription: string | null;
  /** Set after a declined attempt, shown on the checkout page. */
  declined?: boolean;
}

/** What went wrong, as a sentence for the caller; the HTTP layer turns it into a 400. */
export class PaymentStateError extends Error {}

export class PaymentsAccount {
  readonly sessions = new Map<string, SessionRecord>();
  readonly intents = new Map<string, PaymentIntent>();
  readonly charges = new Map<string, Charge>();
  readonly events: StripeEvent[] = [];

  constructor(
    private publicUrl: string,
    private readonly onEvent: (event: StripeEvent) => void,
  ) {}

  /** Where buyers reach the simulator, once its port is known. */
  setPublicUrl(url: string): void {
    this.publicUrl = url.replace(/\/+$/, "");
  }

  createSession(params: CreateSessionParams): CheckoutSession {
    const id = newId("cs_test_", 58);
    const amount = params.line_items.reduce(
      (sum, item) => sum + item.quantity * item.price_data.unit_amount,
      0,
    );
    const now = epochSeconds();
    const session: CheckoutSession = {
      id,
      object: "checkout.session",
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      created: now,
      currency: params.line_items[0]!.price_data.currency,
      customer: null,
      customer_email: params.customer_email ?? null,
      expires_at: now + SESSION_LIFETIME_S,
      invoice: null,
      livemode: false,
      locale: null,
      metadata: params.metadata ?? {},
      mode: "payment",
      payment_intent: null,
      payment_method_types: params.payment_method_types ?? ["card"],
      payment_status: "unpaid",
      setup_intent: null,
      status: "open",
      submit_type: params.submit_type ?? null,
      subscription: null,
      success_url: params.success_url ?? null,
      ui_mode: "hosted_page",
      url: `${this.publicUrl}/c/pay/${id}`,
    };
    this.sessions.set(id, {
      session,
      productName: params.line_items.map((item) => item.price_data.product_data.name).join(", "),
      intentMetadata: params.payment_intent_data?.metadata ?? {},
      intentDescription: params.payment_intent_data?.description ?? null,
    });
    return session;
  }

  /** The card is charged: a succeeded PaymentIntent and Charge, the session complete and paid. */
  pay(sessionId: string): CheckoutSession {
    const record = this.openSession(sessionId);
    const intent = this.intentFor(record, "succeeded");
    const charge = this.chargeFor(intent, record);
    record.session.payment_status = "paid";
    record.session.status = "complete";
    this.emit("charge.succeeded", charge);
    this.emit("payment_intent.succeeded", intent);
    this.emit("checkout.session.completed", record.session);
    return record.session;
  }

  /** The card is declined: the session stays open for another try; nothing is charged. */
  decline(sessionId: string): CheckoutSession {
    const record = this.openSession(sessionId);
    const intent = this.intentFor(record, "requires_payment_method");
    intent.last_payment_error = {
      type: "card_error",
      code: "card_declined",
      decline_code: "generic_decline",
      message: "Your card was declined.",
    } as PaymentIntent["last_payment_error"];
    record.declined = true;
    this.emit("payment_intent.payment_failed", intent);
    return record.session;
  }

  /** A delayed method (a bank debit): the session completes unpaid, the money comes later. */
  payLater(sessionId: string): CheckoutSession {
    const record = this.openSession(sessionId);
    this.intentFor(record, "processing");
    record.session.status = "complete";
    this.emit("checkout.session.completed", record.session);
    return record.session;
  }

  /** The delayed payment ends: it succeeds (charged, paid) or fails (nothing charged). */
  settleLater(sessionId: string, succeeded: boolean): CheckoutSession {
    const record = this.findSession(sessionId);
    const intent = this.intentOf(record);
    if (record.session.payment_status !== "unpaid" || intent?.status !== "processing")
      throw new PaymentStateError(`Checkout Session ${sessionId} has no delayed payment in progress.`);
    if (!succeeded) {
      intent.status = "requires_payment_method";
      this.emit("checkout.session.async_payment_failed", record.session);
      return record.session;
    }
    intent.status = "succeeded";
    intent.amount_received = intent.amount;
    this.chargeFor(intent, record);
    record.session.payment_status = "paid";
    this.emit("checkout.session.async_payment_succeeded", record.session);
    return record.session;
  }

  /** Refunds `amount` cents (default: all that is left) of the payment's charge. */
  refund(intentId: string, amount?: number): Refund {
    const charge = this.chargeOf(intentId);
    const left = charge.amount - charge.amount_refunded;
    const cents = amount ?? left;
    if (!Number.isInteger(cents) || cents < 1 || cents > left)
      throw new PaymentStateError(`Refund amount must be 1 to ${left} cents for ${intentId}.`);
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded += cents;
    charge.refunded = charge.amount_refunded === charge.amount;
    const refund: Refund = {
      id: newId("re_"),
      object: "refund",
      amount: cents,
      charge: charge.id,
      created: epochSeconds(),
      currency: charge.currency,
      metadata: {},
      payment_intent: intentId,
      reason: "requested_by_customer",
      status: "succeeded",
    };
    this.emit("refund.created", refund);
    this.emit("charge.refunded", charge, previous);
    return refund;
  }

  /** The cardholder disputes `amount` cents (default: what was not refunded). */
  dispute(intentId: string, amount?: number): Dispute {
    const charge = this.chargeOf(intentId);
    const left = charge.amount - charge.amount_refunded;
    const cents = amount ?? left;
    if (!Number.isInteger(cents) || cents < 1 || cents > left)
      throw new PaymentStateError(`Dispute amount must be 1 to ${left} cents for ${intentId}.`);
    charge.disputed = true;
    const dispute: Dispute = {
      id: newId("dp_"),
      object: "dispute",
      amount: cents,
      charge: charge.id,
      created: epochSeconds(),
      currency: charge.currency,
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      payment_intent: intentId,
      reason: "fraudulent",
      status: "needs_response",
    };
    this.emit("charge.dispute.created", dispute);
    return dispute;
  }

  findSession(id: string): SessionRecord {
    const record = this.sessions.get(id);
    if (!record) throw new PaymentStateError(`No such checkout.session: '${id}'`);
    return record;
  }

  private openSession(id: string): SessionRecord {
    const record = this.findSession(id);
    if (record.session.status !== "open")
      throw new PaymentStateError(`Checkout Session ${id} is ${record.session.status}, not open.`);
    return record;
  }

  private intentOf(record: SessionRecord): PaymentIntent | undefined {
    const id = record.session.payment_intent;
    return typeof id === "string" ? this.intents.get(id) : undefined;
  }

  /** The session's PaymentIntent (made at the first attempt, as Checkout does), in `status`. */
  private intentFor(record: SessionRecord, status: PaymentIntent["status"]): PaymentIntent {
    const existing = this.intentOf(record);
    if (existing) {
      existing.status = status;
      existing.last_payment_error = null;
      if (status === "succeeded") existing.amount_received = existing.amount;
      return existing;
    }
    const { session } = record;
    const intent: PaymentIntent = {
      id: newId("pi_"),
      object: "payment_intent",
      amount: session.amount_total ?? 0,
      amount_received: status === "succeeded" ? (session.amount_total ?? 0) : 0,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: "automatic_async",
      client_secret: null,
      confirmation_method: "automatic",
      created: epochSeconds(),
      currency: session.currency ?? "usd",
      customer: null,
      description: record.intentDescription,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: { ...record.intentMetadata },
      payment_method_types: session.payment_method_types,
      receipt_email: session.customer_email,
      status,
    };
    this.intents.set(intent.id, intent);
    session.payment_intent = intent.id;
    return intent;
  }

  private chargeFor(intent: PaymentIntent, record: SessionRecord): Charge {
    const id = newId("ch_");
    const charge: Charge = {
      id,
      object: "charge",
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      balance_transaction: newId("txn_"),
      captured: true,
      created: epochSeconds(),
      currency: intent.currency,
      customer: null,
      description: intent.description ?? record.productName,
      disputed: false,
      failure_code: null,
      failure_message: null,
      livemode: false,
      metadata: { ...intent.metadata },
      paid: true,
      payment_intent: intent.id,
      receipt_email: intent.receipt_email,
      receipt_url: `${this.publicUrl}/receipts/${id}`,
      refunded: false,
      status: "succeeded",
    };
    this.charges.set(id, charge);
    intent.latest_charge = id;
    return charge;
  }

  private chargeOf(intentId: string): Charge {
    const latest = this.intents.get(intentId)?.latest_charge;
    const charge = typeof latest === "string" ? this.charges.get(latest) : undefined;
    if (!charge) throw new PaymentStateError(`PaymentIntent ${intentId} has no successful charge.`);
    return charge;
  }

  private emit(type: EventType, object: unknown, previous?: Record<string, unknown>): void {
    const event: StripeEvent = {
      id: newId("evt_"),
      object: "event",
      api_version: API_VERSION,
      created: epochSeconds(),
      data: previous
        ? { object: snapshot(object), previous_attributes: previous }
        : { object: snapshot(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    this.onEvent(event);
  }
}
