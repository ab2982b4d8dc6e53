/**
 * Monitors (docs/api.md#monitors): a monitor's id, the query of a pull and its limits, whether a key
 * can pay for a delivery, the request bodies of /v1/monitors and the webhook delivery's id. The
 * monitors service's calls are MONITORS_RPC (monitors-rpc.ts); what the routes answer is in
 * monitor-views.ts.
 */
import { z } from "zod";
import { nowEpochSeconds, readTimeBound, TIME_BOUND_HINT } from "./dates.ts";

export const MONITORS_QUEUE_GROUP = "monitors";

/** A monitor's id, as the monitors service makes them (`mon_` and 24 hex digits; up to 40 accepted). */
export const MONITOR_ID_PATTERN = /^mon_[A-Za-z0-9]{1,40}$/;

/** The largest page a pull returns. */
export const MONITOR_PAGE_ITEMS = 100;

/** The query of `GET /v1/monitors/{id}/items`. */
export const monitorItemsQuerySchema = z.strictObject({
  cursor: z
    .string()
    .max(64, { error: "must be a cursor this endpoint returned" })
    .optional()
    .meta({ description: "The `cursor` of the previous page; omitted: from the first item." }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, { error: `must be a whole number from 1 to ${MONITOR_PAGE_ITEMS}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, { error: `must be a whole number from 1 to ${MONITOR_PAGE_ITEMS}` })
        .max(MONITOR_PAGE_ITEMS, { error: `must be a whole number from 1 to ${MONITOR_PAGE_ITEMS}` }),
    )
    .optional()
    // Sent as text in the query, read as a whole number: the OpenAPI document says the number.
    .meta({
      type: "integer",
      minimum: 1,
      maximum: MONITOR_PAGE_ITEMS,
      description: `The most items the page holds; default ${MONITOR_PAGE_ITEMS}. A page holding any item costs 1 credit whatever its size.`,
    }),
});

/**
 * The retention: the newest items a monitor keeps for pulling, about this many (older ones are
 * trimmed). A monitor paused for credits loses nothing as long as fewer arrive meanwhile.
 */
export const MONITOR_RETAINED_ITEMS = 100_000;

/** The credits one delivery costs: a pulled page holding an item (docs/api.md#monitors). */
export const MONITOR_DELIVERY_CREDITS = 1;
/** The operation a pull of a monitor's items is admitted and counted under. */
export const MONITOR_PULL_OPERATION = "pullMonitorItems";

export const MONITOR_FUNDING = ["ok", "insufficient_credits", "spend_cap_reached"] as const;
export type MonitorFunding = (typeof MONITOR_FUNDING)[number];

/**
 * Whether a key can pay for its next delivery, from its balance and this month's spend against its
 * cap (as an admission or a key's details report them). A monitor whose key cannot is shown
 * `paused_for_credits`: it keeps matching and keeps every item within the retention, and the next
 * pull after a top-up (or a raised cap) delivers them.
 */
export function fundingOf(
  balance: number,
  monthSpend: { readonly spent: number; readonly cap: number | null } | undefined,
): MonitorFunding {
  if (balance < MONITOR_DELIVERY_CREDITS) return "insufficient_credits";
  const cap = monthSpend?.cap ?? null;
  if (cap !== null && monthSpend !== undefined && monthSpend.spent + MONITOR_DELIVERY_CREDITS > cap)
    return "spend_cap_reached";
  return "ok";
}

/* ---------- the request bodies of /v1/monitors (docs/api.md#monitors) ---------- */

export interface MonitorLimits {
  /** Monitors one account (all its keys together) may hold at once; an operator's key, alone. */
  readonly maxMonitorsPerAccount: number;
  /** The shortest interval a monitor may ask for, in seconds. */
  readonly minIntervalSeconds: number;
}

export const DEFAULT_MONITOR_LIMITS: MonitorLimits = { maxMonitorsPerAccount: 25, minIntervalSeconds: 60 };

const MAX_INTERVAL_SECONDS = 86_400;
const DEFAULT_INTERVAL_SECONDS = 300;
/** A backfill reaches at most this far back (the archive's retention of a monitor's interest). */
const MAX_BACKFILL_SECONDS = 365 * 86_400;

const NAME = /^[A-Za-z0-9_-]{2,32}$/;
const MAX_WEBHOOK_URL_LENGTH = 2_048;

function definitionFields(limits: MonitorLimits) {
  return {
    kind: z.enum(["post", "comment"], { error: "must be post or comment" }),
    subreddit: z.string().regex(NAME, { error: "must be a community name without r/" }).optional(),
    author: z.string().regex(NAME, { error: "must be a username without u/" }).optional(),
    phrase: z
      .string({ error: "must be a string" })
      .trim()
      .min(1, { error: "must not be empty" })
      .max(200, { error: "must be at most 200 characters" })
      .optional(),
    interval_seconds: z
      .number({ error: "must be a number of seconds" })
      .int({ error: "must be a whole number of seconds" })
      .min(limits.minIntervalSeconds, { error: `must be at least ${limits.minIntervalSeconds}` })
      .max(MAX_INTERVAL_SECONDS, { error: `must be at most ${MAX_INTERVAL_SECONDS}` }),
    /**
     * Where matches are POSTed, signed (docs/api.md#monitor-webhooks). Checked further by the
     * monitors service: https in production, never a private, loopback or link-local address.
     * Checked by parsing rather than with `z.url()`, whose JSON Schema `format` keyword some model
     * vendors refuse in an MCP tool's input (services/mcp/src/tools/json-schema.ts).
     */
    webhook_url: z
      .string({ error: "must be a URL" })
      .max(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
      .refine((value) => URL.canParse(value), { error: "must be a URL" }),
  };
}

export function createMonitorSchema(limits: MonitorLimits) {
  const fields = definitionFields(limits);
  return z
    .strictObject({
      ...fields,
      interval_seconds: fields.interval_seconds.default(DEFAULT_INTERVAL_SECONDS),
      webhook_url: fields.webhook_url.optional(),
      backfill_from: z
        .union([z.string(), z.number()], { error: `must be ${TIME_BOUND_HINT}` })
        .transform((raw, ctx) => {
          const now = nowEpochSeconds();
          // The 365-day rule is checked before any wider range, so `1000y` is refused by it; any
          // value it lets through is inside the archive's range.
          const from = readTimeBound(raw, now);
          if (from === undefined) {
            ctx.addIssue({ code: "custom", message: `must be ${TIME_BOUND_HINT}` });
            return z.NEVER;
          }
          if (from > now) ctx.addIssue({ code: "custom", message: "must not be in the future" });
          if (from < now - MAX_BACKFILL_SECONDS)
            ctx.addIssue({ code: "custom", message: "must be within the last 365 days" });
          return from;
        })
        .optional(),
    })
    .superRefine((body, ctx) => {
      if ((body.subreddit === undefined) === (body.author === undefined))
        ctx.addIssue({ code: "custom", message: "give exactly one of subreddit or author", path: [] });
    });
}

/** A change to a monitor: its phrase, its interval, or pausing it. The source and kind stay. */
export function updateMonitorSchema(limits: MonitorLimits) {
  const fields = definitionFields(limits);
  return z.strictObject({
    phrase: fields.phrase.nullable(),
    interval_seconds: fields.interval_seconds.optional(),
    paused: z.boolean({ error: "must be true or false" }).optional(),
    /** A new receiver, or null to stop webhook delivery (items stay pullable). */
    webhook_url: fields.webhook_url.nullable().optional(),
  });
}

/* ---------- webhook delivery (docs/api.md#monitor-webhooks) ---------- */

/** The most items one webhook POST carries. */
export const MONITOR_WEBHOOK_BATCH_ITEMS = 100;

/**
 * A delivery's id, which is also its `webhook-id`: the monitor's id and the batch's sequence
 * number (`t` and a number for a test event), so it is the same on every attempt and redelivery.
 */
export const MONITOR_DELIVERY_ID = /^msg_mon_[A-Za-z0-9]{1,40}_t?\d{1,10}$/;
