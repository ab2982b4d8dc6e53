/**
 * Billing's key-management messages over NATS (BILLING_RPC), for the operator CLI and the
 * developer portal: keys, caps, thresholds, usage, top-ups, notices and the ledger check.
 * Receivers parse with these (distrust the wire); senders build values of the inferred types.
 * Expected outcomes (an empty balance, an unknown key) are values in the reply, never exceptions.
 */
import { z } from "zod";
import { monthSpendSchema } from "./billing-messages.ts";
import { BIDI_CONTROL_PATTERN, KEY_LIMITS, TOP_UP_LIMITS, USAGE_DAYS_LIMITS } from "./limits.ts";
import { accountIdSchema, keyIdSchema, rateLimitSchema, requestIdSchema } from "./message-fields.ts";

const bounded = (limits: { min: number; max: number }) => z.number().int().min(limits.min).max(limits.max);

/**
 * `credits` and `rate_limit` are an operator's to set: a portal account's key (`account_id`) always
 * gets the free grant and the default limits, so whoever speaks for the portal cannot mint credits.
 */
export const createKeyRequestSchema = z
  .object({
    credits: bounded(KEY_LIMITS.credits).optional(),
    rate_limit: z
      .object({ qps: bounded(KEY_LIMITS.qps).optional(), burst: bounded(KEY_LIMITS.burst).optional() })
      .optional(),
    label: z
      .string()
      .max(KEY_LIMITS.labelMaxLength)
      .refine((label) => !BIDI_CONTROL_PATTERN.test(label), {
        error:
          "a label may not contain invisible direction controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C)",
      })
      .optional(),
    /** The portal account that owns the key; its limits on active and created keys then apply. */
    account_id: accountIdSchema.optional(),
  })
  .refine((request) => request.account_id === undefined || request.credits === undefined, {
    error: "an account's key gets the free grant: credits are set only on an operator's key",
    path: ["credits"],
  })
  .refine((request) => request.account_id === undefined || request.rate_limit === undefined, {
    error: "an account's key gets the default limits: rate_limit is set only on an operator's key",
    path: ["rate_limit"],
  });
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;

/** A new key: its id, its secret (shown once, never stored) and its credits. */
export const createdKeySchema = z.object({ id: keyIdSchema, key: z.string(), credits: z.number().int() });
export type CreatedKey = z.infer<typeof createdKeySchema>;

export const createKeyReplySchema = z.discriminatedUnion("outcome", [
  createdKeySchema.extend({ outcome: z.literal("created") }),
  /** Which account limit refused the new key, and its value. */
  z.object({
    outcome: z.literal("limit_reached"),
    limit: z.enum(["active", "lifetime"]),
    max: z.number().int(),
  }),
]);
export type CreateKeyReply = z.infer<typeof createKeyReplySchema>;

export const keyDetailsSchema = z.object({
  id: keyIdSchema,
  label: z.string(),
  credits_balance: z.number().int(),
  revoked: z.boolean(),
  rate_limit: rateLimitSchema,
  created_at: z.string(),
  /** ISO time of the last charged request; null when never used. */
  last_used_at: z.string().nullable(),
  /** The portal account owning the key; null for keys made by an operator. */
  account_id: z.string().nullable(),
  /** The key's spend this calendar month (UTC) and its monthly cap. */
  month_spend: monthSpendSchema,
});
export type KeyDetails = z.infer<typeof keyDetailsSchema>;

/** With `account_id`, a request is scoped to that account: another account's key is "not found". */
const owner = { account_id: accountIdSchema.optional() };

export const showKeyRequestSchema = z.object({ id: z.string().max(64), ...owner });
export const showKeyReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({ found: z.literal(true), key: keyDetailsSchema }),
]);

/** Exactly one filter: an account's keys, or the keys with a label. */
export const listKeysRequestSchema = z.union([
  z.strictObject({ account_id: accountIdSchema }),
  z.strictObject({ label: z.string().min(1).max(KEY_LIMITS.labelMaxLength) }),
]);
export const accountKeyLimitsSchema = z.object({
  active: z.number().int(),
  created: z.number().int(),
  max_active: z.number().int(),
  max_created: z.number().int(),
});
export type AccountKeyLimits = z.infer<typeof accountKeyLimitsSchema>;
export const listKeysReplySchema = z.object({
  keys: z.array(keyDetailsSchema),
  /** For an account: how many keys it has and may have. */
  limits: accountKeyLimitsSchema.optional(),
});
export type ListKeysReply = z.infer<typeof listKeysReplySchema>;

export const revokeKeyRequestSchema = z.object({ id: z.string().max(64), ...owner });
export const revokeKeyReplySchema = z.object({
  outcome: z.enum(["revoked", "already_revoked", "not_found"]),
});

/** A new secret for the same key id: balance, limits and history are kept; the old secret stops working. */
export const rotateKeyRequestSchema = z.object({ id: z.string().max(64), ...owner });

/*
 * The developer portal's own subjects for the changes it makes (billing.accounts.keys.*): the same
 * requests with the account required. Its NATS identity may publish only these, so whoever speaks
 * for the portal cannot revoke or rotate (and so read the new secret of) an operator's key, nor
 * create a key outside an account's limits.
 */
const accountRequired = { account_id: accountIdSchema };
export const createAccountKeyRequestSchema = createKeyRequestSchema.refine(
  (request) => request.account_id !== undefined,
  { error: "account_id is required", path: ["account_id"] },
);
export const revokeAccountKeyRequestSchema = revokeKeyRequestSchema.extend(accountRequired);
export const rotateAccountKeyRequestSchema = rotateKeyRequestSchema.extend(accountRequired);
/**
 * A key's monthly spend cap in credits per calendar month (UTC), or null to remove it. It applies
 * from the next admission on, to the month's spend so far: a cap below it refuses every further
 * debit this month.
 */
export const setSpendCapRequestSchema = z.object({
  id: z.string().max(64),
  ...owner,
  monthly_cap: bounded(KEY_LIMITS.monthlyCap).nullable(),
});
export type SetSpendCapRequest = z.infer<typeof setSpendCapRequestSchema>;
export const setAccountSpendCapRequestSchema = setSpendCapRequestSchema.extend(accountRequired);
export const setSpendCapReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("set"), month_spend: monthSpendSchema }),
  z.object({ outcome: z.literal("not_found") }),
]);
export type SetSpendCapReply = z.infer<typeof setSpendCapReplySchema>;

/**
 * The low-balance threshold an account chose for all its keys (and those it creates later), in
 * credits; null for the default: a tenth of each key's last top-up, or 100 credits.
 */
export const setLowBalanceThresholdRequestSchema = z.object({
  account_id: accountIdSchema,
  low_balance_threshold: bounded(KEY_LIMITS.credits).nullable(),
});
export const setLowBalanceThresholdReplySchema = z.object({ keys_updated: z.number().int().min(0) });

/**
 * A notice event, published into the JetStream work queue of notices (subject billing.events.notice,
 * stream `NOTICES`; `publishNoticeEvent` in @rda/service-kit) and sent by the portal's notices
 * worker. Billing publishes `balance_low`, `spend_cap_80` and `spend_cap_100` when a debit crosses
 * the line (exactly one admission crosses each; admissions are serial in the ledger). Whoever paused
 * work because billing refused its debit for credits (an export, a monitor's webhook delivery, the
 * gateway's monitor pulls) publishes `spending_paused` with service-kit's `tellSpendingPaused`.
 * Monitors publish `webhook_failing` when a webhook batch failed for good and the monitor paused.
 * `crossing` names the crossing, so each notice is sent once whichever worker hears it and however
 * often it is delivered.
 *
 * For any other feature that spends on its own and pauses for credits: call `tellSpendingPaused`
 * from the pause with billing's refusal, `what` naming the work for people and a `crossing` that is
 * the same for every retry of one pause and new for the next pause (e.g. the work's id and the key's
 * count of top-ups). Its NATS identity then needs publish rights on billing.events.notice and
 * `$JS.API.STREAM.INFO.NOTICES` (deploy/nats/auth.conf).
 */
export const noticeEventSchema = z.object({
  kind: z.enum(["balance_low", "spend_cap_80", "spend_cap_100", "spending_paused", "webhook_failing"]),
  key_id: keyIdSchema,
  account_id: accountIdSchema,
  crossing: z.string().min(1).max(200),
  balance: z.number().int().min(0),
  threshold: z.number().int().min(0).optional(),
  month_spend: monthSpendSchema.optional(),
  /** For spending_paused and webhook_failing: what paused (a monitor's or export's name, for people). */
  what: z.string().max(200).optional(),
});
export type NoticeEvent = z.infer<typeof noticeEventSchema>;

export const rotateKeyReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("rotated"), id: keyIdSchema, key: z.string() }),
  z.object({ outcome: z.literal("not_found") }),
  z.object({ outcome: z.literal("revoked") }),
]);

/** One UTC day of a key's usage: requests charged and refunded per operation, credits added. */
export const usageDaySchema = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  charged: z.record(z.string(), z.number().int()),
  refunded: z.record(z.string(), z.number().int()),
  credits_bought: z.number().int(),
  credits_granted: z.number().int(),
  paid_cents: z.number().int(),
});
export type UsageDay = z.infer<typeof usageDaySchema>;

export const keyUsageRequestSchema = z.object({
  id: z.string().max(64),
  ...owner,
  /** Days back from today (UTC), today included. */
  days: bounded(USAGE_DAYS_LIMITS).default(30),
});
export const keyUsageReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({ found: z.literal(true), days: z.array(usageDaySchema) }),
]);
export type KeyUsageReply = z.infer<typeof keyUsageReplySchema>;

/**
 * Below the minimum is answered `below_minimum`; above the maximum the request is refused (service
 * error 400); one that would take the balance past the most a balance may hold
 * (`BALANCE_LIMITS.maxCredits`) is answered `balance_limit`, and adds nothing.
 */
export const topUpRequestSchema = z.object({
  id: z.string().max(64),
  usd_cents: z
    .number()
    .int()
    .min(0)
    .max(TOP_UP_LIMITS.maxUsdCents, { error: `one top-up is at most ${TOP_UP_LIMITS.maxUsdCents} US cents` }),
  request_id: requestIdSchema,
});
export const topUpReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("ok"), credits_added: z.number().int(), credits_balance: z.number().int() }),
  z.object({ outcome: z.literal("not_found") }),
  z.object({ outcome: z.literal("revoked") }),
  z.object({ outcome: z.literal("below_minimum"), minimum_usd_cents: z.number().int() }),
  z.object({
    outcome: z.literal("balance_limit"),
    max_balance: z.number().int(),
    credits_balance: z.number().int(),
  }),
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
      /** What disagrees, for the operator. */
      problem: z.string(),
    }),
  ),
});
