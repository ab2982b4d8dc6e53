/**
 * Billing's hot-path and work-debit messages over NATS (BILLING_RPC): key lookup, admission,
 * settlement, refunds, work debits, and the events billing and the portal publish.
 * Receivers parse with these (distrust the wire); senders build values of the inferred types.
 * Expected outcomes (an empty balance, an unknown key) are values in the reply, never exceptions.
 */
import { z } from "zod";
import { PENDING_DEBIT_LIMITS, WORK_DEBIT_LIMITS } from "./bounds.ts";
import type { ErrorCode } from "./errors.ts";
import {
  keyHashSchema,
  keyIdSchema,
  operationIdSchema,
  rateLimitSchema,
  requestIdSchema,
} from "./message-fields.ts";

/**
 * A key by the hash of a secret presented (an API key), or by its id (a caller the gateway already
 * knows is bound to that key: an OAuth access token, the MCP service's internal credential).
 */
export const lookupKeyRequestSchema = z.union([
  z.strictObject({ key_hash: keyHashSchema }),
  z.strictObject({ key_id: keyIdSchema }),
]);
export type LookupKeyRequest = z.infer<typeof lookupKeyRequestSchema>;
export const lookupKeyReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    key: z.object({
      id: keyIdSchema,
      rate_limit: rateLimitSchema,
      revoked: z.boolean(),
      /** The portal account owning the key; null for an operator's key. */
      account_id: z.string().nullable(),
    }),
  }),
]);
export type LookupKeyReply = z.infer<typeof lookupKeyReplySchema>;

/**
 * Admission (docs/api.md#limits): one request, decided by billing in one atomic step, in this order:
 * the key's own rate bucket (`tokens` of it, spent by every authenticated request, refused or not),
 * the balance (`credits`), the key's monthly spend cap, then the debit. The upstream budget is not
 * admission's: the adapters' pacer owns it (docs/upstream.md#rate-limits). The debit stays pending until
 * the gateway settles it (the answer reached the client) or refunds it; billing voids it, as a
 * refund, when `pending_ms` passes first. With `credits` 0 (the account endpoint, /mcp messages that
 * are not tool calls) only the bucket is spent and the balance is read.
 * `key_hash` is the hash of the secret presented: billing refuses it once the key was rotated. It is
 * absent for a caller bound to the key id rather than to a secret (an OAuth access token, whose grant
 * names the key, survives a rotation; a revocation still refuses it).
 * `operation` is what the usage counters count.
 */
export const admitRequestSchema = z.object({
  key_id: keyIdSchema,
  key_hash: keyHashSchema.optional(),
  request_id: requestIdSchema,
  operation: operationIdSchema,
  credits: z.number().int().min(0).max(100),
  tokens: z.number().int().min(1).max(1_000).default(1),
  pending_ms: z.number().int().min(PENDING_DEBIT_LIMITS.minMs).max(PENDING_DEBIT_LIMITS.maxMs),
});
export type AdmitRequest = z.input<typeof admitRequestSchema>;

/** The key's own rate bucket after the request, for the RateLimit headers (docs/api.md#limits). */
export const keyBucketSchema = z.object({
  qps: z.number().int().min(1),
  burst: z.number().int().min(1),
  /** Whole tokens left. */
  remaining: z.number().int().min(0),
  /** Seconds until the bucket is full again. */
  reset_seconds: z.number().int().min(0),
});
export type KeyBucket = z.infer<typeof keyBucketSchema>;

const balance = z.number().int().min(0);
const waitMs = z.number().int().min(0);

/**
 * The key's spend in the calendar month (UTC) of an admission, against its monthly spend cap (null:
 * none), as the admission script read it.
 */
export const monthSpendSchema = z.object({
  /** YYYY-MM: the month the debit was (or would have been) counted in. */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  /** Credits debited this month and not refunded. */
  spent: z.number().int().min(0),
  cap: z.number().int().min(0).nullable(),
});
export type MonthSpend = z.infer<typeof monthSpendSchema>;

export const admitReplySchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("admitted"),
    balance,
    bucket: keyBucketSchema,
    month_spend: monthSpendSchema,
    /** The balance below which the key's account is told (notices). */
    low_balance_threshold: z.number().int().min(0),
    /** The key's count of top-ups: each re-arms the low-balance line, so its next crossing is new. */
    low_balance_round: z.number().int().min(0),
  }),
  z.object({ outcome: z.literal("rate_limited"), retry_after_ms: waitMs, bucket: keyBucketSchema }),
  z.object({
    outcome: z.literal("insufficient"),
    balance,
    bucket: keyBucketSchema,
    /** The key's count of top-ups (as when admitted): a pause for credits is named by it. */
    low_balance_round: z.number().int().min(0),
  }),
  /** The debit would take the month's spend past the key's cap: nothing was taken. */
  z.object({
    outcome: z.literal("spend_cap_reached"),
    balance,
    bucket: keyBucketSchema,
    month_spend: monthSpendSchema,
  }),
  z.object({ outcome: z.literal("unknown_key") }),
  z.object({ outcome: z.literal("revoked") }),
]);
export type AdmitReply = z.infer<typeof admitReplySchema>;

/**
 * How a pending debit ended, as a settle or a refund finds it (docs/architecture.md#a-debits-life):
 * `settled` / `refunded` by this call; `already_settled` / `already_refunded` by an earlier one;
 * `voided` by billing at its deadline; `expired` when billing holds no record of it (never
 * recorded, or so old its record is gone). Every end but the first two changed nothing.
 */
export const DEBIT_ENDS = [
  "settled",
  "already_settled",
  "refunded",
  "already_refunded",
  "voided",
  "expired",
] as const;
export const debitEndSchema = z.enum(DEBIT_ENDS);
export type DebitEnd = z.infer<typeof debitEndSchema>;

/** A served request whose answer reached the client: its pending debit becomes final. */
export const pendingDebitSchema = z.object({ key_id: keyIdSchema, request_id: requestIdSchema });
export const settleRequestSchema = z.object({ debits: z.array(pendingDebitSchema).min(1).max(1_000) });
export const settleReplySchema = z.object({
  /** Debits that were pending and are now final. */
  settled: z.number().int().min(0),
  /** Debits already settled, refunded or voided, or never recorded. */
  ignored: z.number().int().min(0),
  /** How each debit asked ended, in the order asked. */
  ends: z.array(debitEndSchema),
});

/** Published on the refunds JetStream subject with the request id as the message id (deduplication). */
export const refundMessageSchema = z.object({
  key_id: keyIdSchema,
  request_id: requestIdSchema,
  reason: z.string().max(64) as z.ZodType<ErrorCode | string>,
});
export type RefundMessage = z.infer<typeof refundMessageSchema>;

/**
 * The answer to a refund asked for synchronously: `refunded` gave the credits back now; any other
 * end gave nothing. `balance` is the key's balance afterwards (null: the key has no record).
 */
export const refundReplySchema = z.object({
  outcome: debitEndSchema,
  balance: z.number().int().min(0).nullable(),
});
export type RefundReply = z.infer<typeof refundReplySchema>;

/* ---------- billing: work debits ---------- */

/** The operations background work is counted under in a key's usage. */
export const WORK_OPERATIONS = {
  /** One upstream page of an export job. */
  exportPage: "exportPage",
  /** One round of a monitor's webhook batch. */
  monitorWebhookBatch: "monitorWebhookBatch",
} as const;

/**
 * A work debit (docs/architecture.md#a-work-debits-life): the credits of one unit of background
 * work (an export page, a monitor's webhook batch), taken before the work runs under the work's own
 * id, so the work retried after a crash is charged once. Like a request's debit it stays pending
 * until its caller settles it (the work is done) or refunds it (the work failed); billing voids it
 * when `pending_ms` passes first, so work whose worker died costs nothing.
 */
export const workDebitRequestSchema = z.object({
  key_id: keyIdSchema,
  /** The work's own id (an export page's try, a batch's round): the debit's request id. */
  work_id: requestIdSchema,
  operation: z.enum([WORK_OPERATIONS.exportPage, WORK_OPERATIONS.monitorWebhookBatch]),
  credits: z.number().int().min(1).max(100),
  pending_ms: z.number().int().min(WORK_DEBIT_LIMITS.minMs).max(WORK_DEBIT_LIMITS.maxMs),
});
export type WorkDebitRequest = z.input<typeof workDebitRequestSchema>;

/**
 * `debited` now; `already_debited` (this work id's debit is pending or settled: charge nothing more,
 * do the work); `already_ended` (it was refunded or voided: do the work under a new id). Refused,
 * nothing taken: `insufficient`, `spend_cap_reached` (the caller pauses the work and tells the
 * key's account, packages/service-kit work-billing.ts), `unknown_key`, `revoked`.
 */
const workBalance = z.number().int();
export const workDebitReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.enum(["debited", "already_debited", "already_ended"]), balance: workBalance }),
  z.object({
    outcome: z.literal("insufficient"),
    balance: workBalance,
    /** The key's portal account, whom a pause is told to; null for an operator's key. */
    account_id: z.string().nullable(),
    /** The key's count of top-ups: a pause for credits is named by it, told once per top-up. */
    low_balance_round: z.number().int().min(0),
  }),
  z.object({
    outcome: z.literal("spend_cap_reached"),
    balance: workBalance,
    account_id: z.string().nullable(),
    month_spend: monthSpendSchema,
  }),
  z.object({ outcome: z.enum(["unknown_key", "revoked"]) }),
]);
export type WorkDebitReply = z.infer<typeof workDebitReplySchema>;

/** Published when a key is revoked or its secret rotated: every gateway drops it from its cache. */
export const keyChangedEventSchema = z.object({
  key_id: keyIdSchema,
  change: z.enum(["revoked", "rotated"]),
});
export type KeyChangedEvent = z.infer<typeof keyChangedEventSchema>;

/**
 * Published by the portal when a person revokes an OAuth client's access: every gateway refuses the
 * grant's access tokens until `expires_at` (epoch seconds), when the last of them expires anyway.
 */
export const grantRevokedEventSchema = z.object({
  grant_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  expires_at: z.number().int().min(0),
});
