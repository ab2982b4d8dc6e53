/**
 * Every message that crosses NATS, as a zod schema. Receivers parse with these (distrust the wire);
 * senders build values of the inferred types. Expected outcomes (an empty balance, an unknown key)
 * are values in the reply, never exceptions.
 */
import { z } from "zod";
import { KEY_ID_PATTERN } from "./api-keys.ts";
import type { ErrorCode } from "./errors.ts";

const keyId = z.string().regex(KEY_ID_PATTERN);
/** Request ids come from callers (`x-request-id`), so they are bounded before use as Redis fields. */
export const requestIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);
const rateLimit = z.object({ qps: z.number().int().min(1), burst: z.number().int().min(1) });

/* ---------- adapters ---------- */

/** Request to an adapter: the operation's parameters, already validated and normalised by the gateway. */
export function adapterRequestSchema<T extends z.ZodType>(params: T) {
  return z.object({ request_id: requestIdSchema, params });
}

/**
 * How an adapter's work ended. `ok` carries list metadata where the operation is paginated;
 * the failures map to the gateway's 400 (refunded), 429 global (refunded) and 502 (refunded).
 */
export const adapterReplyMetaSchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("ok"),
    cursor: z.number().int().nullable().optional(),
    has_more: z.boolean().optional(),
  }),
  z.object({ outcome: z.literal("bad_request"), message: z.string() }),
  z.object({
    outcome: z.literal("rate_limited"),
    message: z.string(),
    retry_after_seconds: z.number().int().min(1),
  }),
  z.object({ outcome: z.literal("unavailable"), message: z.string() }),
]);
export type AdapterReplyMeta = z.infer<typeof adapterReplyMetaSchema>;

/* ---------- billing: the hot path ---------- */

export const lookupKeyRequestSchema = z.object({ key_hash: z.string().regex(/^[0-9a-f]{64}$/) });
export const lookupKeyReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    key: z.object({ id: keyId, rate_limit: rateLimit, revoked: z.boolean() }),
  }),
]);
export type LookupKeyReply = z.infer<typeof lookupKeyReplySchema>;

export const debitRequestSchema = z.object({ key_id: keyId, request_id: requestIdSchema });
export const debitReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("debited"), balance: z.number().int().min(0) }),
  z.object({ outcome: z.literal("insufficient"), balance: z.number().int().min(0) }),
  z.object({ outcome: z.literal("unknown_key") }),
  z.object({ outcome: z.literal("revoked") }),
]);
export type DebitReply = z.infer<typeof debitReplySchema>;

export const balanceRequestSchema = z.object({ key_id: keyId });
export const balanceReplySchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("ok"),
    balance: z.number().int().min(0),
    rate_limit: rateLimit,
    revoked: z.boolean(),
  }),
  z.object({ outcome: z.literal("unknown_key") }),
]);
export type BalanceReply = z.infer<typeof balanceReplySchema>;

/** Published on the refunds JetStream subject with the request id as the message id (deduplication). */
export const refundMessageSchema = z.object({
  key_id: keyId,
  request_id: requestIdSchema,
  reason: z.string().max(64) as z.ZodType<ErrorCode | string>,
});
export type RefundMessage = z.infer<typeof refundMessageSchema>;

export const keyRevokedEventSchema = z.object({ key_id: keyId });
export type KeyRevokedEvent = z.infer<typeof keyRevokedEventSchema>;

/* ---------- billing: operator commands ---------- */

export const createKeyRequestSchema = z.object({
  credits: z.number().int().min(0).max(1_000_000_000).optional(),
  rate_limit: z
    .object({
      qps: z.number().int().min(1).max(100_000).optional(),
      burst: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  label: z.string().max(200).optional(),
});
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;
export const createKeyReplySchema = z.object({ id: keyId, key: z.string(), credits: z.number().int() });
export type CreateKeyReply = z.infer<typeof createKeyReplySchema>;

export const keyDetailsSchema = z.object({
  id: keyId,
  label: z.string(),
  credits_balance: z.number().int(),
  revoked: z.boolean(),
  rate_limit: rateLimit,
  created_at: z.string(),
});
export type KeyDetails = z.infer<typeof keyDetailsSchema>;

export const showKeyRequestSchema = z.object({ id: z.string().max(64) });
export const showKeyReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({ found: z.literal(true), key: keyDetailsSchema }),
]);

export const revokeKeyRequestSchema = z.object({ id: z.string().max(64) });
export const revokeKeyReplySchema = z.object({
  outcome: z.enum(["revoked", "already_revoked", "not_found"]),
});

export const topUpRequestSchema = z.object({
  id: z.string().max(64),
  usd_cents: z.number().int().min(0),
  request_id: requestIdSchema,
});
export const topUpReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("ok"), credits_added: z.number().int(), credits_balance: z.number().int() }),
  z.object({ outcome: z.literal("not_found") }),
  z.object({ outcome: z.literal("revoked") }),
  z.object({ outcome: z.literal("below_minimum"), minimum_usd_cents: z.number().int() }),
]);

export const verifyLedgerRequestSchema = z.object({});
export const verifyLedgerReplySchema = z.object({
  ok: z.boolean(),
  keys_checked: z.number().int(),
  journal_entries: z.number().int(),
  mismatches: z.array(
    z.object({
      key_id: z.string(),
      balance: z.number().int(),
      journal_sum: z.number().int(),
      /** What disagrees, for the operator (absent from older billing versions). */
      problem: z.string().optional(),
    }),
  ),
});

/** Any billing reply may instead be this when billing itself cannot reach its store. */
export const billingFailureSchema = z.object({ outcome: z.literal("failure"), message: z.string() });
