/**
 * The messages between the gateway (and monitors, exports) and the adapters, over NATS.
 * Receivers parse with these (distrust the wire); senders build values of the inferred types.
 * Expected outcomes (an empty balance, an unknown key) are values in the reply, never exceptions.
 */
import { z } from "zod";
import { requestIdSchema } from "./message-fields.ts";

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
  // Our own refusal after reading: the window held more than the request may read (not the upstream's).
  z.object({ outcome: z.literal("too_large"), message: z.string() }),
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
