/**
 * Card payments (docs/api.md#top-ups): the developer portal verifies each event of the payment
 * provider and asks billing, the only writer of the ledger, to apply it. Billing applies a payment
 * once per payment id, credits what the amount actually paid buys on the ladder, and takes back the
 * credits of a refunded or disputed part as far as the balance allows, all journaled with the
 * payment id.
 */
import { z } from "zod";
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN } from "./api-keys.ts";

/** A PaymentIntent id (`pi_…`): the payment's id in the journal and in Redis key names. */
export const PAYMENT_ID_PATTERN = /^pi_[A-Za-z0-9]{8,64}$/;
/** The id of an expandable Stripe field: the id itself, or the expanded object's id. */
export function expandableId(value: string | { id: string } | null | undefined): string | undefined {
  return typeof value === "string" ? value : value?.id;
}

/** A Stripe webhook signing secret: the portal and billing hold the same one. */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9_+/=]{8,250}$/;
/** A Checkout Session id (`cs_test_…`, `cs_live_…`). */
export const CHECKOUT_SESSION_ID_PATTERN = /^cs_(test|live)_[A-Za-z0-9]{8,200}$/;

const paymentId = z.string().regex(PAYMENT_ID_PATTERN);
const keyId = z.string().regex(KEY_ID_PATTERN);
const accountId = z.string().regex(ACCOUNT_ID_PATTERN);
const cents = z.number().int().min(0).max(100_000_000);
const receiptUrl = z
  .string()
  .max(1_000)
  .regex(/^https?:\/\/\S+$/)
  .nullable();

/**
 * The payment provider's event exactly as it was delivered: its body and its signature header.
 * Billing checks the signature itself when it holds the webhook secret, so whoever can reach
 * billing cannot credit a payment that was never made; the fields beside it must then say what the
 * signed event says.
 */
export const signedEventSchema = z.object({
  payload: z.string().max(1_048_576),
  signature: z.string().max(4_096),
});
export type SignedEvent = z.infer<typeof signedEventSchema>;

/** A paid Checkout Session, as the verified event says: who paid, for which key, how much. */
export const applyPaymentRequestSchema = z.object({
  payment_id: paymentId,
  key_id: keyId,
  account_id: accountId,
  checkout_session_id: z.string().regex(CHECKOUT_SESSION_ID_PATTERN),
  /** What was actually paid (the session's `amount_total`), never a figure from metadata. */
  amount_cents: cents,
  currency: z.literal("usd"),
  /** Epoch seconds of the payment provider's event. */
  paid_at: z.number().int().min(0),
  receipt_url: receiptUrl,
  signed_event: signedEventSchema.optional(),
});
export type ApplyPaymentRequest = z.infer<typeof applyPaymentRequestSchema>;

/**
 * Billing holds the webhook secret and the request carries no event signed with it, or the signed
 * event says something else than the request. Nothing changed.
 */
const unverifiedReply = z.object({ outcome: z.literal("unverified"), reason: z.string() });

export const applyPaymentReplySchema = z.discriminatedUnion("outcome", [
  z.object({
    /** `applied` the first time, `already_applied` for every later copy of the same payment. */
    outcome: z.enum(["applied", "already_applied"]),
    credits: z.number().int(),
    /** Credits taken back at once because a refund or dispute of this payment arrived first. */
    credits_removed: z.number().int(),
    balance: z.number().int(),
  }),
  /** No such key, or not this account's. */
  z.object({ outcome: z.literal("not_found") }),
  unverifiedReply,
]);
export type ApplyPaymentReply = z.infer<typeof applyPaymentReplySchema>;

/**
 * Money going back: a refund (`amount_cents` is the charge's cumulative `amount_refunded`) or a
 * dispute (the disputed amount). Amounts are cumulative, so a re-delivered or late event changes
 * nothing, and a refund that arrives before its payment is kept and applied with it.
 */
export const reversePaymentRequestSchema = z.object({
  payment_id: paymentId,
  key_id: keyId,
  account_id: accountId,
  kind: z.enum(["refund", "dispute"]),
  amount_cents: cents,
  receipt_url: receiptUrl.optional(),
  signed_event: signedEventSchema.optional(),
});
export type ReversePaymentRequest = z.infer<typeof reversePaymentRequestSchema>;

export const reversePaymentReplySchema = z.discriminatedUnion("outcome", [
  z.object({
    /**
     * `reversed`: credits taken back (possibly 0 when the balance is empty); `unchanged`: nothing
     * new in this event; `recorded`: the payment is not applied yet, the reversal waits for it.
     */
    outcome: z.enum(["reversed", "unchanged", "recorded"]),
    credits_removed: z.number().int(),
    balance: z.number().int(),
    /**
     * For `unchanged`, when this same reversal (kind and cumulative amount) was applied before:
     * what it did then, so a redelivered event can still send its notice with its own figures.
     */
    applied: z.object({ credits_removed: z.number().int(), balance: z.number().int() }).optional(),
  }),
  z.object({ outcome: z.literal("not_found") }),
  unverifiedReply,
]);
export type ReversePaymentReply = z.infer<typeof reversePaymentReplySchema>;

/** Exactly one filter: the payments of an account's keys, or of one key. */
export const listPaymentsRequestSchema = z.union([
  z.strictObject({ account_id: accountId }),
  z.strictObject({ key_id: keyId }),
]);

export const PAYMENT_STATUSES = ["pending", "paid", "partially_refunded", "refunded", "disputed"] as const;

export const paymentSchema = z.object({
  payment_id: paymentId,
  key_id: keyId,
  account_id: z.string(),
  checkout_session_id: z.string(),
  /** `pending`: a refund or dispute arrived before the payment itself. */
  status: z.enum(PAYMENT_STATUSES),
  amount_cents: z.number().int(),
  currency: z.string(),
  /** Credits the payment bought. */
  credits: z.number().int(),
  refunded_cents: z.number().int(),
  disputed_cents: z.number().int(),
  /** Credits taken back from the balance after refunds and disputes (never below a balance of 0). */
  credits_removed: z.number().int(),
  /** ISO time of the payment; null while pending. */
  paid_at: z.string().nullable(),
  receipt_url: z.string().nullable(),
});
export type Payment = z.infer<typeof paymentSchema>;

/** Newest first. */
export const listPaymentsReplySchema = z.object({ payments: z.array(paymentSchema) });
