/**
 * `POST /stripe/webhook`: Stripe's events, verified and handed to billing. The body is kept as raw
 * bytes, because the signature covers exactly them; an event without a valid signature from within
 * the tolerance is 400 and changes nothing. Answers: 200 once billing has applied the event (or it
 * needs nothing), 503 when billing or Stripe cannot be asked now, so Stripe delivers it again
 * later; billing applies each payment and each reversal once, however often it is delivered and by
 * however many replicas at the same moment.
 */
import {
  ACCOUNT_ID_PATTERN,
  err,
  KEY_ID_PATTERN,
  ok,
  type Result,
  type ReversePaymentReply,
  type SignedEvent,
} from "@rda/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Stripe from "stripe";
import type { PortalContext } from "../context.ts";
import type { Notice } from "../notices/notice-kinds.ts";
import { paymentFailedNotice, receiptNotice, reversalNotice } from "../notices/payment-notices.ts";
import { actionFor, type WebhookAction } from "../payments/webhook-events.ts";

/** Stripe's own default: a delivery signed more than five minutes ago is a replay. */
const TOLERANCE_SECONDS = 300;
/** Checkout Session events run to a few kilobytes; Stripe's largest events stay far below this. */
const BODY_LIMIT_BYTES = 1_048_576;

type Payments = NonNullable<PortalContext["payments"]>;

export function registerStripeWebhook(app: FastifyInstance, ctx: PortalContext): void {
  const payments = ctx.payments;
  if (!payments) return;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );
  app.setErrorHandler(async (error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, "webhook failed");
    return reply.code(status).send({ error: status === 500 ? "internal error" : error.message });
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: "/stripe/webhook",
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      "request completed",
    );
  });
  app.post("/stripe/webhook", { bodyLimit: BODY_LIMIT_BYTES }, (request, reply) =>
    handleDelivery(ctx, payments, request, reply),
  );
}

async function handleDelivery(
  ctx: PortalContext,
  payments: Payments,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const signature = request.headers["stripe-signature"];
  if (typeof signature !== "string" || !Buffer.isBuffer(request.body))
    return reply.code(400).send({ error: "a signed JSON event is required (Stripe-Signature header)" });
  let event: Stripe.Event;
  try {
    event = payments.stripe.webhooks.constructEvent(
      request.body,
      signature,
      payments.webhookSecret,
      TOLERANCE_SECONDS,
    );
  } catch (error) {
    const reason =
      error instanceof Stripe.errors.StripeSignatureVerificationError ? error.message : String(error);
    request.log.warn({ reason }, "webhook refused: bad signature");
    return reply.code(400).send({ error: "the Stripe-Signature does not verify" });
  }
  const action = actionFor(event);
  const log = request.log.child({ event_id: event.id, event_type: event.type });
  // Billing checks the signature again itself: it does not take the portal's word for money.
  const signedEvent = { payload: request.body.toString("utf8"), signature };
  const outcome = await perform(ctx, payments, action, signedEvent);
  if (!outcome.ok) {
    log.warn({ reason: outcome.error }, "webhook not applied yet: Stripe will deliver it again");
    return reply.code(503).header("retry-after", "30").send({ error: outcome.error });
  }
  log.info(outcome.value, action.kind === "ignore" ? "webhook ignored" : "webhook applied");
  return reply.code(200).send({ received: true });
}

/** Applied (or ignored), with what the log line says of it; or not applied yet, and why. */
type Performed = Result<Record<string, unknown>, string>;

async function perform(
  ctx: PortalContext,
  payments: Payments,
  action: WebhookAction,
  signedEvent: SignedEvent,
): Promise<Performed> {
  if (action.kind === "ignore") return ok({ reason: action.reason });
  if (action.kind === "failed") {
    const { sessionId, keyId, accountId, amountCents } = action;
    const told = await tell(
      ctx,
      accountId,
      paymentFailedNotice({ sessionId, keyId, amountCents, portalUrl: ctx.settings.publicUrl }),
    );
    if (!told) return NOT_TOLD;
    return ok({ checkout_session_id: sessionId, key_id: keyId, failed: true });
  }
  if (action.kind === "apply") {
    const receipt = await receiptOf(payments.stripe, action.payment.payment_id);
    const applied = await ctx.billing.applyPayment({
      ...action.payment,
      receipt_url: receipt,
      signed_event: signedEvent,
    });
    if (!applied.ok) return err(`billing did not answer: ${applied.error.message}`);
    if (applied.value.outcome === "unverified") return notProven(applied.value.reason);
    // Also on `already_applied`: a delivery whose receipt failed is re-sent by Stripe; sent once.
    const told =
      applied.value.outcome === "not_found" ||
      (await tell(
        ctx,
        action.payment.account_id,
        receiptNotice({
          paymentId: action.payment.payment_id,
          keyId: action.payment.key_id,
          amountCents: action.payment.amount_cents,
          credits: applied.value.credits,
          balance: applied.value.balance,
          receiptUrl: receipt,
          portalUrl: ctx.settings.publicUrl,
        }),
      ));
    if (!told) return NOT_TOLD;
    return ok({ payment_id: action.payment.payment_id, key_id: action.payment.key_id, ...applied.value });
  }
  // A refund or dispute names only the PaymentIntent; its metadata (set at checkout) names the key.
  const owner = await ownerOf(payments.stripe, action.paymentId);
  if (owner === "unreachable") return err("Stripe did not answer for the PaymentIntent");
  if (owner === undefined) return ok({ payment_id: action.paymentId, reason: "not one of ours" });
  const reversed = await ctx.billing.reversePayment({
    payment_id: action.paymentId,
    key_id: owner.keyId,
    account_id: owner.accountId,
    kind: action.reversal,
    amount_cents: action.amountCents,
    receipt_url: action.receiptUrl,
    signed_event: signedEvent,
  });
  if (!reversed.ok) return err(`billing did not answer: ${reversed.error.message}`);
  if (reversed.value.outcome === "unverified") return notProven(reversed.value.reason);
  const done = reversalDone(reversed.value);
  // Also on a redelivery (`unchanged`, with what the reversal did then): a delivery whose notice
  // failed is re-sent by Stripe; the notifier's record sends it once.
  const told =
    done === undefined ||
    (await tell(
      ctx,
      owner.accountId,
      reversalNotice({
        paymentId: action.paymentId,
        keyId: owner.keyId,
        kind: action.reversal,
        amountCents: action.amountCents,
        creditsRemoved: done.credits_removed,
        balance: done.balance,
        portalUrl: ctx.settings.publicUrl,
      }),
    ));
  if (!told) return NOT_TOLD;
  return ok({ payment_id: action.paymentId, key_id: owner.keyId, kind: action.reversal, ...reversed.value });
}

/**
 * What the reversal this event names did to the key, now or on an earlier delivery; undefined when
 * there is nothing to tell (it waits for its payment, or it was never applied as such).
 */
function reversalDone(reply: ReversePaymentReply): { credits_removed: number; balance: number } | undefined {
  if (reply.outcome === "reversed") return reply;
  if (reply.outcome === "unchanged") return reply.applied;
  return undefined;
}

/**
 * A notice of the payment. The money moved either way, but a notice that could not be sent yet
 * (the mail server refused) fails the delivery: Stripe delivers the event again, billing finds it
 * applied, and the notice is tried again. The notifier's record sends each once however often.
 */
async function tell(ctx: PortalContext, accountId: string, notice: Notice): Promise<boolean> {
  try {
    const told = await ctx.notices.notifier.notify(accountId, notice);
    return told.outcome !== "not_yet";
  } catch (error) {
    ctx.logger.warn(
      { account_id: accountId, kind: notice.kind, err: String(error) },
      "payment notice not sent yet",
    );
    return false;
  }
}

const NOT_TOLD: Performed = err("the notice of this payment was not sent yet");

/**
 * Billing holds a different webhook secret than this portal (or none is expected and one was
 * sent): a configuration error. Stripe keeps delivering the event, so it is applied once the
 * operator gives both the same STRIPE_WEBHOOK_SECRET.
 */
function notProven(reason: string): Performed {
  return err(
    `billing did not accept Stripe's signed event (${reason}); is its STRIPE_WEBHOOK_SECRET the portal's?`,
  );
}

/** The receipt link of the payment's charge; a receipt is a nicety, so a failure here costs only the link. */
async function receiptOf(stripe: Stripe, paymentId: string): Promise<string | null> {
  try {
    const intent = await stripe.paymentIntents.retrieve(paymentId, { expand: ["latest_charge"] });
    const charge = intent.latest_charge;
    return typeof charge === "object" && charge?.receipt_url ? charge.receipt_url : null;
  } catch {
    return null;
  }
}

async function ownerOf(stripe: Stripe, paymentId: string) {
  try {
    const { metadata } = await stripe.paymentIntents.retrieve(paymentId);
    const [keyId = "", accountId = ""] = [metadata.key_id, metadata.account_id];
    return KEY_ID_PATTERN.test(keyId) && ACCOUNT_ID_PATTERN.test(accountId)
      ? { keyId, accountId }
      : undefined;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)
      return undefined;
    return "unreachable" as const;
  }
}
