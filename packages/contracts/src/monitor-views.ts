/**
 * What the monitors routes answer in `data` (docs/api.md#monitors): a monitor as its key sees it,
 * a backfill's estimate, a webhook delivery and the answers built of them. MANAGEMENT_ROUTES
 * declares each route's answer with these, and the OpenAPI document (so the SDK) is derived from it.
 */
import { z } from "zod";
import { MONITOR_DELIVERY_ID, MONITOR_PAGE_ITEMS, MONITOR_RETAINED_ITEMS } from "./monitors.ts";

const epochSeconds = z.number().int().meta({ description: "Epoch seconds." });

export const MONITOR_STATUSES = [
  "backfilling",
  "live",
  "paused",
  "failing",
  "paused_for_credits",
  "revoked",
] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const monitorViewSchema = z
  .object({
    id: z.string().meta({ examples: ["mon_3f2a9c0d1e4b5a6978c0d1e2"] }),
    kind: z.enum(["post", "comment"]),
    subreddit: z.string().optional(),
    author: z.string().optional(),
    phrase: z.string().nullable(),
    interval_seconds: z.number().int(),
    backfill_from: epochSeconds.nullable(),
    status: z.enum(MONITOR_STATUSES).meta({
      description:
        "`paused`: by the caller. `paused_for_credits`: the key cannot pay for a delivery now (its balance, or its monthly spend cap); the monitor keeps matching and keeping items within the retention, and pulls and webhook batches resume from the same place after a top-up or a raised cap. `failing`: a webhook batch failed for its whole retry window; delivery waits (items are kept) until it is redelivered or `paused: false` is sent. `revoked`: the monitor's key was revoked; it stopped polling and delivering for good, no longer counts towards the account's limit on monitors, and can only be deleted.",
    }),
    paused_reason: z
      .enum(["insufficient_credits", "spend_cap_reached"])
      .optional()
      .meta({ description: "Present with `paused_for_credits` when the key cannot pay now: why." }),
    created_at: epochSeconds,
    webhook_url: z.string().nullable().meta({ description: "Where batches are POSTed; null: pull only." }),
    backfill_progress: z
      .object({
        through: epochSeconds.nullable().meta({
          description:
            "Epoch seconds: the backfill holds the matches up to this second; null before its first page.",
        }),
        pages_done: z.number().int().meta({ description: "Upstream pages the backfill has read so far." }),
      })
      .optional()
      .meta({
        description:
          "Present while the backfill pages (status `backfilling`, or paused during it): how far it has collected. It ends at the source's newest item, then the monitor turns live.",
      }),
    items_collected: z
      .number()
      .int()
      .optional()
      .meta({
        description: `Items the monitor holds for pulling now, from its first (within the retention, about the newest ${MONITOR_RETAINED_ITEMS.toLocaleString("en-US")}). On reads and lists.`,
      }),
    items_pulled: z.number().int().optional().meta({
      description:
        "Items pulls have returned so far, each counted once however often it is pulled again. On reads and lists.",
    }),
  })
  .meta({ id: "Monitor" });

const webhookSecret = z
  .string()
  .regex(/^whsec_/)
  .meta({
    description:
      "The webhook signing secret (Standard Webhooks). Shown once: store it now; it is kept only encrypted.",
  });

export const monitorBackfillEstimateSchema = z
  .object({
    upstream_pages: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The backfill's upstream pages, estimated." }),
    max_credits: z.number().int().nullable().meta({
      description:
        "What pulling the backfill is estimated to cost at 100 items a pull (an estimate, not a bound; with a phrase, the most it costs, as the count is of the items before the filter).",
    }),
    estimated_items: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({ description: "The backfill's items, by the archive's count (before the phrase filter)." }),
    method: z.string().optional().meta({
      description:
        "How the estimate was made: the archive's count (as export quotes are), exact when the first page holds it all, or sampled from the first page when the count is not available.",
    }),
  })
  .meta({ id: "MonitorBackfillEstimate" });

export const monitorDeliverySchema = z
  .object({
    id: z.string().regex(MONITOR_DELIVERY_ID).meta({
      description: "The delivery's id, sent as `webhook-id` on every attempt and redelivery.",
    }),
    type: z.enum(["monitor.items", "monitor.test"]),
    items: z.number().int().meta({ description: "Items in the batch." }),
    state: z.enum(["pending", "delivered", "failed"]),
    created_at: epochSeconds,
    next_attempt_at: z.number().int().nullable().meta({ description: "Epoch seconds of the next retry." }),
    attempts: z.array(
      z.object({
        at: epochSeconds,
        status_code: z.number().int().nullable().meta({ description: "Null: the receiver never answered." }),
        latency_ms: z.number().int(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "MonitorDelivery" });

/** What `POST /v1/monitors/estimate` answers: the estimate a create would answer, nothing created. */
export const monitorEstimateSchema = z.object({ backfill_estimate: monitorBackfillEstimateSchema });

export const createdMonitorSchema = z.object({
  monitor: monitorViewSchema,
  backfill_estimate: monitorBackfillEstimateSchema,
  webhook_secret: webhookSecret.optional().meta({
    description:
      "Present when `webhook_url` was given. The webhook signing secret (Standard Webhooks). Shown once: store it now; it is kept only encrypted.",
  }),
});

export const monitorListSchema = z.object({
  monitors: z.array(monitorViewSchema),
  limit: z.number().int().meta({ description: "Monitors the key's account may hold across its keys." }),
  limit_used: z.number().int().optional().meta({
    description:
      "Monitors the key's account holds now across its keys (the key's own for an operator's key).",
  }),
});

export const oneMonitorSchema = z.object({ monitor: monitorViewSchema });

export const changedMonitorSchema = z.object({
  monitor: monitorViewSchema,
  webhook_secret: webhookSecret.optional(),
});

export const deletedMonitorSchema = z.object({ deleted: z.boolean(), id: z.string() });

export const monitorItemsPageSchema = z.object({
  items: z.array(z.record(z.string(), z.unknown())).max(MONITOR_PAGE_ITEMS),
  cursor: z.string().nullable(),
});

export const monitorDeliveriesSchema = z.object({ deliveries: z.array(monitorDeliverySchema) });

export const oneDeliverySchema = z.object({ delivery: monitorDeliverySchema });

export const rotatedSecretSchema = z.object({
  webhook_secret: webhookSecret,
  previous_secret_expires_at: epochSeconds,
});
