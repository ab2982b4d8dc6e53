/**
 * The billing page: each key's balance, buying credits by card (a key, an amount from the ladder's
 * minimum to the top-up cap, the credits it buys shown live by htmx and on "See credits" without
 * JavaScript), the payment history, and the page Stripe sends the buyer back to, which follows the
 * payment until billing has credited it. Credits are added only by the verified webhook
 * (stripe-webhook.ts), never by the buyer's return.
 */
import {
  CHECKOUT_SESSION_ID_PATTERN,
  KEY_ID_PATTERN,
  type KeyDetails,
  MINIMUM_TOP_UP_CENTS,
  type Payment,
  TOP_UP_LIMITS,
} from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { field, noticeFor } from "../http/forms.ts";
import { type PageLocals, renderPage, sendPageError } from "../http/render.ts";
import { requireSignIn, type SignedIn } from "../http/session.ts";
import { createCheckoutSession } from "../payments/checkout.ts";
import { ladderRows, quote, readAmount, usd } from "../topup-quote.ts";
import { billingFailed } from "./keys.ts";

const DEFAULT_AMOUNT = "25";

interface TopUpForm {
  readonly keyId: string;
  readonly amount: string;
  readonly amountError?: string;
  readonly keyError?: string;
}

export function billingPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const form = {
      keyId: field(request.query, "key") ?? "",
      amount: field(request.query, "amount") ?? DEFAULT_AMOUNT,
    };
    return renderBilling(ctx, reply, signedIn, form, { notice: noticeFor(request.query) });
  };
}

async function renderBilling(
  ctx: PortalContext,
  reply: FastifyReply,
  signedIn: SignedIn,
  form: TopUpForm,
  extra: Partial<PageLocals> = {},
  status = 200,
) {
  const [listed, payments] = await Promise.all([
    ctx.billing.listKeys(signedIn.accountId),
    ctx.payments
      ? ctx.billing.payments(signedIn.accountId)
      : Promise.resolve({ ok: true as const, value: [] }),
  ]);
  if (!listed.ok) return billingFailed(ctx, reply, listed.error);
  if (!payments.ok) return billingFailed(ctx, reply, payments.error);
  const keys = listed.value.keys;
  const amount = readAmount(form.amount);
  return renderPage(
    ctx,
    reply,
    "billing",
    {
      title: "Billing",
      nav: "billing",
      keys,
      activeKeys: keys.filter((key) => !key.revoked),
      paymentsEnabled: ctx.payments !== undefined,
      form,
      quote: amount.ok && !form.amountError ? quote(amount.value) : undefined,
      ladder: ladderRows(),
      limits: { minimum: usd(MINIMUM_TOP_UP_CENTS), maximum: usd(TOP_UP_LIMITS.maxUsdCents) },
      payments: paymentRows(payments.value, keys),
      ...extra,
    },
    status,
  );
}

/** The quote beside the amount field, refreshed by htmx as the amount changes. */
export function quotePanel() {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const amount = readAmount(field(request.query, "amount"));
    const html = await reply.viewAsync("partials/quote.eta", {
      quote: amount.ok ? quote(amount.value) : undefined,
      amountError: amount.ok ? undefined : amount.error,
    });
    return reply.type("text/html; charset=utf-8").send(html);
  };
}

/** "See credits" re-renders the page with the quote; "Pay" starts a Checkout Session and goes there. */
export function startCheckout(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const payments = ctx.payments;
    if (!payments) return sendPageError(ctx, reply, "not_found");
    const form = { keyId: field(request.body, "key_id") ?? "", amount: field(request.body, "amount") ?? "" };
    const amount = readAmount(form.amount);
    const key = await activeKey(ctx, signedIn, form.keyId);
    if (key === "unavailable")
      return sendPageError(ctx, reply, "billing_unavailable", { retryAfterSeconds: 5 });
    const problems = {
      amountError: amount.ok ? undefined : amount.error,
      keyError: key ? undefined : "Choose one of your active keys.",
    };
    if (!amount.ok || !key) return renderBilling(ctx, reply, signedIn, { ...form, ...problems }, {}, 400);
    if (field(request.body, "action") !== "pay") return renderBilling(ctx, reply, signedIn, form);
    try {
      const session = await createCheckoutSession(payments.stripe, {
        accountId: signedIn.accountId,
        email: signedIn.email,
        key,
        cents: amount.value,
        portalUrl: ctx.settings.publicUrl,
      });
      request.log.info(
        { account_id: signedIn.accountId, key_id: key.id, usd_cents: amount.value, session_id: session.id },
        "checkout started",
      );
      return reply.redirect(session.url!, 303);
    } catch (error) {
      return sendPageError(ctx, reply, "payments_unavailable", {
        retryAfterSeconds: 30,
        internal: String(error),
      });
    }
  };
}

async function activeKey(ctx: PortalContext, signedIn: SignedIn, keyId: string) {
  if (!KEY_ID_PATTERN.test(keyId)) return undefined;
  const shown = await ctx.billing.showKey(signedIn.accountId, keyId);
  if (!shown.ok) return "unavailable" as const;
  return shown.value && !shown.value.revoked ? shown.value : undefined;
}

/** Where Stripe sends the buyer back: the payment's state, followed until the credits are there. */
export function returnPage(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = requireSignIn(request, reply);
    if (!signedIn) return reply;
    const state = await paymentState(ctx, signedIn, field(request.query, "session_id") ?? "");
    if (state.kind === "not_found") return sendPageError(ctx, reply, "not_found");
    return renderPage(ctx, reply, "payment-return", { title: "Your payment", nav: "billing", state });
  };
}

export function returnStatus(ctx: PortalContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = request.signedIn;
    if (!signedIn) return sendPageError(ctx, reply, "sign_in_required", { json: true });
    const state = await paymentState(ctx, signedIn, field(request.query, "session_id") ?? "");
    if (state.kind === "not_found") return sendPageError(ctx, reply, "not_found", { json: true });
    const html = await reply.viewAsync("partials/payment-status.eta", { state });
    return reply.type("text/html; charset=utf-8").send(html);
  };
}

export type PaymentState =
  | { kind: "credited"; sessionId: string; payment: PaymentRow; key?: KeyDetails }
  | { kind: "waiting" | "processing" | "unpaid" | "unavailable"; sessionId: string }
  | { kind: "not_found" };

/**
 * Billing first (has the webhook credited it?), then Stripe (was it paid?). A session of another
 * account is "not found", like another account's key.
 */
async function paymentState(
  ctx: PortalContext,
  signedIn: SignedIn,
  sessionId: string,
): Promise<PaymentState> {
  if (!ctx.payments || !CHECKOUT_SESSION_ID_PATTERN.test(sessionId)) return { kind: "not_found" };
  const [payments, listed] = await Promise.all([
    ctx.billing.payments(signedIn.accountId),
    ctx.billing.listKeys(signedIn.accountId),
  ]);
  if (!payments.ok || !listed.ok) return { kind: "unavailable", sessionId };
  const payment = payments.value.find((p) => p.checkout_session_id === sessionId && p.paid_at !== null);
  if (payment) {
    const key = listed.value.keys.find((candidate) => candidate.id === payment.key_id);
    return { kind: "credited", sessionId, payment: paymentRows([payment], listed.value.keys)[0]!, key };
  }
  try {
    const session = await ctx.payments.stripe.checkout.sessions.retrieve(sessionId);
    if (session.metadata?.account_id !== signedIn.accountId) return { kind: "not_found" };
    if (session.payment_status === "paid") return { kind: "waiting", sessionId };
    return { kind: session.status === "complete" ? "processing" : "unpaid", sessionId };
  } catch {
    return { kind: "unavailable", sessionId };
  }
}

export interface PaymentRow {
  readonly id: string;
  readonly date: string | null;
  readonly keyId: string;
  readonly keyLabel: string;
  readonly amount: string;
  readonly credits: number;
  readonly creditsRemoved: number;
  readonly status: string;
  readonly statusClass: string;
  readonly receiptUrl: string | null;
}

const STATUS_LABELS: Record<Payment["status"], string> = {
  pending: "Pending",
  paid: "Paid",
  partially_refunded: "Partially refunded",
  refunded: "Refunded",
  disputed: "Disputed",
};

function paymentRows(payments: readonly Payment[], keys: readonly KeyDetails[]): PaymentRow[] {
  return payments.map((payment) => ({
    id: payment.payment_id,
    date: payment.paid_at,
    keyId: payment.key_id,
    keyLabel: keys.find((key) => key.id === payment.key_id)?.label || payment.key_id,
    amount: usd(payment.amount_cents),
    credits: payment.credits,
    creditsRemoved: payment.credits_removed,
    status:
      payment.status === "partially_refunded"
        ? `${STATUS_LABELS[payment.status]} (${usd(payment.refunded_cents)})`
        : STATUS_LABELS[payment.status],
    statusClass: payment.status.replace("_", "-"),
    receiptUrl: payment.receipt_url,
  }));
}
