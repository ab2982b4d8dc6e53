/**
 * Every message that crosses NATS, as a zod schema. Receivers parse with these (distrust the wire);
 * senders build values of the inferred types. Expected outcomes (an empty balance, an unknown key)
 * are values in the reply, never exceptions.
 */
import { z } from "zod";
import { ACCOUNT_ID_PATTERN, KEY_HASH_PATTERN, KEY_ID_PATTERN } from "./api-keys.ts";
import { PENDING_DEBIT_LIMITS, WORK_DEBIT_LIMITS } from "./bounds.ts";
import type { ErrorCode } from "./errors.ts";
import { BIDI_CONTROL_PATTERN, KEY_LIMITS, TOP_UP_LIMITS, USAGE_DAYS_LIMITS } from "./limits.ts";

const keyId = z.string().regex(KEY_ID_PATTERN);
const keyHash = z.string().regex(KEY_HASH_PATTERN);
export const accountIdSchema = z.string().regex(ACCOUNT_ID_PATTERN);
/**
 * An operation's id (`listPosts`, or an MCP tool's `search_posts`); usage is counted per operation.
 * No ':' (it is a field of the debit record and of the usage counters' names).
 */
export const OPERATION_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
const operationId = z.string().regex(OPERATION_ID_PATTERN);
/** Request ids come from callers (`x-request-id`), so they are bounded before use as Redis fields. */
export const requestIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);
const rateLimit = z.object({ qps: z.number().int().min(1), burst: z.number().int().min(1) });

/* ---------- adapters ---------- */

/**
 * Who an upstream request serves, for the share of the upstream budget it may draw on: customers
 * waiting on HTTP or MCP (`interactive`, the default), or background work (`monitors`, `exports`).
 */
export const UPSTREAM_PRIORITIES = ["interactive", "monitors", "exports"] as const;
export type UpstreamPriority = (typeof UPSTREAM_PRIORITIES)[number];

/**
 * Whose share of the upstream budget a request draws on (docs/upstream.md#fair-shares): the portal
 * account owning the key, so one account's keys count as one; an operator's key (no account) is an
 * account of its own.
 */
export const budgetAccountSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/);

export function budgetAccountOf(keyId: string, accountId: string | null | undefined): string {
  return accountId ?? `key:${keyId}`;
}

/**
 * Request to an adapter: the operation's parameters, already validated and normalised by the gateway.
 * `max_age_s`: the caller's bound on the answer's age (`Cache-Control: max-age`, 0 for `no-cache`);
 * absent, the data's own freshness bound applies. `priority`: interactive when absent. `account`:
 * whose fair share of the class the upstream calls draw on (`budgetAccountOf`); absent, the calls
 * share one flow with every other caller that did not say.
 */
export function adapterRequestSchema<T extends z.ZodType>(params: T) {
  return z.object({
    request_id: requestIdSchema,
    params,
    max_age_s: z.number().int().min(0).optional(),
    priority: z.enum(UPSTREAM_PRIORITIES).optional(),
    account: budgetAccountSchema.optional(),
  });
}

/**
 * How an adapter's work ended. `ok` carries list metadata where the operation is paginated;
 * the failures map to the gateway's 400 (refunded), 429 global (refunded) and 502 (refunded).
 * `rate_limited` is the upstream's own refusal (or the window it reported spent); `budget_spent` is
 * ours: no turn in the shared upstream budget came in time, nothing was sent.
 */
export const adapterReplyMetaSchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("ok"),
    cursor: z.number().int().nullable().optional(),
    has_more: z.boolean().optional(),
    /** Epoch ms the upstream produced the oldest answer this reply was built from (its `Age`). */
    fetched_at_ms: z.number().int().min(0).optional(),
    /**
     * How long after `fetched_at_ms` this answer may be served again: the shortest freshness bound
     * of the upstream answers behind it. Absent: not to be served again (not all were cacheable).
     */
    max_age_s: z.number().int().min(0).optional(),
    /**
     * Where the upstream answers behind it came from, the costliest way named: `upstream` (fetched
     * for this request), `joined` (a fetch another request started), `cache` (all from the cache).
     */
    source: z.enum(["cache", "joined", "upstream"]).optional(),
  }),
  z.object({ outcome: z.literal("bad_request"), message: z.string() }),
  z.object({
    outcome: z.literal("rate_limited"),
    message: z.string(),
    retry_after_seconds: z.number().int().min(1),
  }),
  z.object({
    outcome: z.literal("budget_spent"),
    message: z.string(),
    retry_after_seconds: z.number().int().min(1),
  }),
  z.object({ outcome: z.literal("unavailable"), message: z.string() }),
  /** Our own store (the pacer's Redis) could not be asked: nothing was sent, the upstream is not to blame. */
  z.object({ outcome: z.literal("store_unavailable"), message: z.string() }),
]);
export type AdapterReplyMeta = z.infer<typeof adapterReplyMetaSchema>;

/* ---------- billing: the hot path ---------- */

/**
 * A key by the hash of a secret presented (an API key), or by its id (a caller the gateway already
 * knows is bound to that key: an OAuth access token, the MCP service's internal credential).
 */
export const lookupKeyRequestSchema = z.union([
  z.strictObject({ key_hash: keyHash }),
  z.strictObject({ key_id: keyId }),
]);
export type LookupKeyRequest = z.infer<typeof lookupKeyRequestSchema>;
export const lookupKeyReplySchema = z.discriminatedUnion("found", [
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    key: z.object({
      id: keyId,
      rate_limit: rateLimit,
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
  key_id: keyId,
  key_hash: keyHash.optional(),
  request_id: requestIdSchema,
  operation: operationId,
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
 * none), as the admission script read it. Absent from the answers of older billing versions.
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
    month_spend: monthSpendSchema.optional(),
    /** The balance below which the key's account is told (notices); absent from older versions. */
    low_balance_threshold: z.number().int().min(0).optional(),
    /** The key's count of top-ups: each re-arms the low-balance line, so its next crossing is new. */
    low_balance_round: z.number().int().min(0).optional(),
  }),
  z.object({ outcome: z.literal("rate_limited"), retry_after_ms: waitMs, bucket: keyBucketSchema }),
  z.object({
    outcome: z.literal("insufficient"),
    balance,
    bucket: keyBucketSchema,
    /** The key's count of top-ups (as when admitted): a pause for credits is named by it. */
    low_balance_round: z.number().int().min(0).optional(),
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
export const pendingDebitSchema = z.object({ key_id: keyId, request_id: requestIdSchema });
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
  key_id: keyId,
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
  key_id: keyId,
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
  key_id: keyId,
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
export type GrantRevokedEvent = z.infer<typeof grantRevokedEventSchema>;

/* ---------- billing: key management (operator CLI and developer portal) ---------- */

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
export const createdKeySchema = z.object({ id: keyId, key: z.string(), credits: z.number().int() });
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
  id: keyId,
  label: z.string(),
  credits_balance: z.number().int(),
  revoked: z.boolean(),
  rate_limit: rateLimit,
  created_at: z.string(),
  /** ISO time of the last charged request; null when never used. */
  last_used_at: z.string().nullable(),
  /** The portal account owning the key; null for keys made by an operator. */
  account_id: z.string().nullable(),
  /** The key's spend this calendar month (UTC) and its monthly cap; absent from older billing versions. */
  month_spend: monthSpendSchema.optional(),
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
 * stream `NOTICES`; `publishNoticeEvent` in @rda/service-kit) and sent by a portal replica. Billing
 * publishes `balance_low`, `spend_cap_80` and `spend_cap_100` when a debit crosses the line
 * (exactly one admission crosses each; admissions are serial in the ledger), and `spending_paused`
 * when an export page is refused for lack of credits. Monitors publish `webhook_failing` when a
 * webhook batch failed for good and the monitor paused. `crossing` names the crossing, so the portal
 * sends each notice once whichever replica hears it and however often it is delivered.
 *
 * For monitors (or any other feature that spends on its own and pauses at a zero balance): publish
 * `spending_paused` with `publishNoticeEvent` from the pause, `what` naming the monitor for people,
 * `account_id` the key's account, and a `crossing` that is the same for every retry of one pause and
 * new for the next pause (e.g. the monitor id and when the pause began). Its NATS identity then needs
 * publish rights on billing.events.notice and `$JS.API.STREAM.INFO.NOTICES` (deploy/nats/auth.conf).
 */
export const noticeEventSchema = z.object({
  kind: z.enum(["balance_low", "spend_cap_80", "spend_cap_100", "spending_paused", "webhook_failing"]),
  key_id: keyId,
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
  z.object({ outcome: z.literal("rotated"), id: keyId, key: z.string() }),
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
      /** What disagrees, for the operator (absent from older billing versions). */
      problem: z.string().optional(),
    }),
  ),
});
