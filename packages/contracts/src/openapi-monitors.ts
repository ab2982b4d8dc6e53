/**
 * The monitors endpoints in the OpenAPI document (docs/api.md#monitors). Their bodies are the zod
 * schemas the monitors service validates with (monitors.ts), emitted as JSON Schema, so the document
 * cannot drift from what is accepted.
 */
import { z } from "zod";
import {
  createMonitorSchema,
  DEFAULT_MONITOR_LIMITS,
  MONITOR_DELIVERY_ID,
  MONITOR_PAGE_ITEMS,
  MONITOR_RETAINED_ITEMS,
  MONITOR_WEBHOOK_BATCH_ITEMS,
  updateMonitorSchema,
} from "./monitors.ts";
import { type JsonObject, schemaRef } from "./openapi-extras.ts";

export const MONITORS_TAG = {
  name: "Monitors",
  description:
    "Watch a community or an author, optionally by phrase, with an optional backfill of history; pull the matched items, or have them POSTed to a webhook signed per Standard Webhooks. Managing is free; a pulled page holding an item, or a webhook batch the receiver accepted, costs 1 credit.",
} as const;

function bodySchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as JsonObject;
  return rest;
}

const monitorSchema: JsonObject = {
  type: "object",
  required: [
    "id",
    "kind",
    "phrase",
    "interval_seconds",
    "backfill_from",
    "status",
    "created_at",
    "webhook_url",
  ],
  properties: {
    id: { type: "string", examples: ["mon_3f2a9c0d1e4b5a6978c0d1e2"] },
    kind: { type: "string", enum: ["post", "comment"] },
    subreddit: { type: "string" },
    author: { type: "string" },
    phrase: { type: ["string", "null"] },
    interval_seconds: { type: "integer" },
    backfill_from: { type: ["integer", "null"], description: "Epoch seconds." },
    status: {
      type: "string",
      enum: ["backfilling", "live", "paused", "failing", "paused_for_credits", "revoked"],
      description:
        "`paused`: by the caller. `paused_for_credits`: the key cannot pay for a delivery now (its balance, or its monthly spend cap); the monitor keeps matching and keeping items within the retention, and pulls and webhook batches resume from the same place after a top-up or a raised cap. `failing`: a webhook batch failed for its whole retry window; delivery waits (items are kept) until it is redelivered or `paused: false` is sent. `revoked`: the monitor's key was revoked; it stopped polling and delivering for good, no longer counts towards the account's limit on monitors, and can only be deleted.",
    },
    paused_reason: {
      type: "string",
      enum: ["insufficient_credits", "spend_cap_reached"],
      description: "Present with `paused_for_credits` when the key cannot pay now: why.",
    },
    created_at: { type: "integer", description: "Epoch seconds." },
    webhook_url: { type: ["string", "null"], description: "Where batches are POSTed; null: pull only." },
    backfill_progress: {
      type: "object",
      required: ["through", "pages_done"],
      description:
        "Present while the backfill pages (status `backfilling`, or paused during it): how far it has collected. It ends at the source's newest item, then the monitor turns live.",
      properties: {
        through: {
          type: ["integer", "null"],
          description:
            "Epoch seconds: the backfill holds the matches up to this second; null before its first page.",
        },
        pages_done: { type: "integer", description: "Upstream pages the backfill has read so far." },
      },
    },
    items_collected: {
      type: "integer",
      description: `Items the monitor holds for pulling now, from its first (within the retention, about the newest ${MONITOR_RETAINED_ITEMS.toLocaleString("en-US")}). On reads and lists.`,
    },
    items_pulled: {
      type: "integer",
      description:
        "Items pulls have returned so far, each counted once however often it is pulled again. On reads and lists.",
    },
  },
};

const secretSchema: JsonObject = {
  type: "string",
  pattern: "^whsec_",
  description:
    "The webhook signing secret (Standard Webhooks). Shown once: store it now; it is kept only encrypted.",
};

const estimateSchema: JsonObject = {
  type: "object",
  required: ["upstream_pages", "max_credits"],
  properties: {
    upstream_pages: { type: ["integer", "null"], description: "The backfill's upstream pages, estimated." },
    max_credits: {
      type: ["integer", "null"],
      description:
        "What pulling the backfill is estimated to cost at 100 items a pull (an estimate, not a bound; with a phrase, the most it costs, as the count is of the items before the filter).",
    },
    estimated_items: {
      type: ["integer", "null"],
      description: "The backfill's items, by the archive's count (before the phrase filter).",
    },
    method: {
      type: "string",
      description:
        "How the estimate was made: the archive's count (as export quotes are), exact when the first page holds it all, or sampled from the first page when the count is not available.",
    },
  },
};

function answer(description: string, data: JsonObject, status = "200"): JsonObject {
  return {
    [status]: {
      description,
      headers: {
        "x-credits-used": { $ref: "#/components/headers/CreditsUsed" },
        "x-credits-remaining": { $ref: "#/components/headers/CreditsRemaining" },
        "x-request-id": { $ref: "#/components/headers/RequestId" },
      },
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["data", "_service"],
            properties: { data, _service: { $ref: schemaRef("CreditServiceMeta") } },
          },
        },
      },
    },
  };
}

/** The catalog's responses: 404 is `resource_not_found` (another key's monitor is not found either). */
const errors = (...statuses: number[]): JsonObject =>
  Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
  );

const idParameter: JsonObject = {
  name: "id",
  in: "path",
  required: true,
  description: "The monitor's id; another key's monitor is not found (404).",
  schema: { type: "string", pattern: "^mon_[A-Za-z0-9]{1,40}$" },
};

const jsonBody = (schema: z.ZodType): JsonObject => ({
  required: true,
  content: { "application/json": { schema: bodySchema(schema) } },
});

const oneMonitor: JsonObject = {
  type: "object",
  required: ["monitor"],
  properties: { monitor: monitorSchema },
};

export function describeMonitorEndpoints(): Record<string, JsonObject> {
  const limits = DEFAULT_MONITOR_LIMITS;
  const tags = [MONITORS_TAG.name];
  return {
    "/v1/monitors": {
      post: {
        operationId: "createMonitor",
        tags,
        summary: "Create a monitor",
        description: `Free. An account holds at most ${limits.maxMonitorsPerAccount} monitors across all its keys (an operator's key, alone); one more is 409, uncharged. The interval is at least ${limits.minIntervalSeconds} s. The body is at most 8 KiB (413 beyond); a bad body is 400 naming every bad field. Answers the backfill's estimated upstream pages and maximum cost.`,
        requestBody: jsonBody(createMonitorSchema(limits)),
        responses: {
          ...answer(
            "Created. Costs nothing.",
            {
              type: "object",
              required: ["monitor", "backfill_estimate"],
              properties: {
                monitor: monitorSchema,
                backfill_estimate: estimateSchema,
                webhook_secret: {
                  ...secretSchema,
                  description: `Present when \`webhook_url\` was given. ${secretSchema.description}`,
                },
              },
            },
            "201",
          ),
          ...errors(400, 401, 409, 413, 429, 503),
        },
      },
      get: {
        operationId: "listMonitors",
        tags,
        summary: "List the key's monitors",
        description: "Free. Oldest first.",
        responses: {
          ...answer("The key's monitors. Costs nothing.", {
            type: "object",
            required: ["monitors", "limit"],
            properties: {
              monitors: { type: "array", items: monitorSchema },
              limit: { type: "integer", description: "Monitors the key's account may hold across its keys." },
              limit_used: {
                type: "integer",
                description:
                  "Monitors the key's account holds now across its keys (the key's own for an operator's key).",
              },
            },
          }),
          ...errors(401, 429, 503),
        },
      },
    },
    "/v1/monitors/{id}": {
      get: {
        operationId: "getMonitor",
        tags,
        summary: "Read a monitor",
        description: "Free.",
        parameters: [idParameter],
        responses: { ...answer("The monitor. Costs nothing.", oneMonitor), ...errors(401, 404, 429, 503) },
      },
      patch: {
        operationId: "updateMonitor",
        tags,
        summary: "Change a monitor's phrase, interval or webhook, or pause it",
        description:
          "Free. `phrase: null` removes the phrase; `webhook_url: null` stops webhook delivery. A first `webhook_url` answers its `webhook_secret` once and delivers items matched from then on. `paused: false` resumes a `failing` monitor at the batch it stopped at.",
        parameters: [idParameter],
        requestBody: jsonBody(updateMonitorSchema(limits)),
        responses: {
          ...answer("The changed monitor. Costs nothing.", {
            type: "object",
            required: ["monitor"],
            properties: { monitor: monitorSchema, webhook_secret: secretSchema },
          }),
          ...errors(400, 401, 404, 413, 429, 503),
        },
      },
      delete: {
        operationId: "deleteMonitor",
        tags,
        summary: "Delete a monitor and its undelivered items",
        description: "Free.",
        parameters: [idParameter],
        responses: {
          ...answer("Deleted. Costs nothing.", {
            type: "object",
            required: ["deleted", "id"],
            properties: { deleted: { type: "boolean" }, id: { type: "string" } },
          }),
          ...errors(401, 404, 429, 503),
        },
      },
    },
    "/v1/monitors/{id}/items": {
      get: {
        operationId: "pullMonitorItems",
        tags,
        summary: "Pull a monitor's matched items",
        description: `Up to ${MONITOR_PAGE_ITEMS} items after \`cursor\`, in delivery order. 1 credit for a page holding at least one item; an empty page is free and returns the same cursor. At zero balance (or a reached spend cap) a pull is 402, uncharged, and the monitor shows \`paused_for_credits\`; its items wait within the retention (about the newest ${MONITOR_RETAINED_ITEMS.toLocaleString("en-US")}) and the same cursor continues after a top-up.`,
        parameters: [
          idParameter,
          {
            name: "cursor",
            in: "query",
            required: false,
            description: "The `cursor` of the previous page; omitted: from the first item.",
            schema: { type: "string" },
          },
          {
            name: "limit",
            in: "query",
            required: false,
            description: `The most items the page holds; default ${MONITOR_PAGE_ITEMS}. A page holding any item costs 1 credit whatever its size.`,
            schema: { type: "integer", minimum: 1, maximum: MONITOR_PAGE_ITEMS },
          },
        ],
        responses: {
          ...answer("A page of items. Costs 1 credit when it holds an item, else nothing.", {
            type: "object",
            required: ["items", "cursor"],
            properties: {
              items: { type: "array", items: { type: "object" }, maxItems: MONITOR_PAGE_ITEMS },
              cursor: { type: ["string", "null"] },
            },
          }),
          ...errors(400, 401, 402, 404, 429, 503),
        },
      },
    },
    ...describeWebhookEndpoints(tags),
  };
}

const deliverySchema: JsonObject = {
  type: "object",
  required: ["id", "type", "items", "state", "created_at", "next_attempt_at", "attempts"],
  properties: {
    id: {
      type: "string",
      pattern: MONITOR_DELIVERY_ID.source,
      description: "The delivery's id, sent as `webhook-id` on every attempt and redelivery.",
    },
    type: { type: "string", enum: ["monitor.items", "monitor.test"] },
    items: { type: "integer", description: "Items in the batch." },
    state: { type: "string", enum: ["pending", "delivered", "failed"] },
    created_at: { type: "integer", description: "Epoch seconds." },
    next_attempt_at: { type: ["integer", "null"], description: "Epoch seconds of the next retry." },
    attempts: {
      type: "array",
      items: {
        type: "object",
        required: ["at", "status_code", "latency_ms", "error"],
        properties: {
          at: { type: "integer", description: "Epoch seconds." },
          status_code: { type: ["integer", "null"], description: "Null: the receiver never answered." },
          latency_ms: { type: "integer" },
          error: { type: ["string", "null"] },
        },
      },
    },
  },
};

const oneDelivery: JsonObject = {
  type: "object",
  required: ["delivery"],
  properties: { delivery: deliverySchema },
};

function describeWebhookEndpoints(tags: string[]): Record<string, JsonObject> {
  return {
    "/v1/monitors/{id}/deliveries": {
      get: {
        operationId: "listMonitorDeliveries",
        tags,
        summary: "The webhook delivery log",
        description: `Free. The newest 100 deliveries of the last 30 days, newest first, each with every attempt's time, status code, latency and error. A batch holds up to ${MONITOR_WEBHOOK_BATCH_ITEMS} items, POSTed as \`{type: "monitor.items", timestamp, data: {monitor_id, delivery_id, items}}\` with the Standard Webhooks headers.`,
        parameters: [idParameter],
        responses: {
          ...answer("The log. Costs nothing.", {
            type: "object",
            required: ["deliveries"],
            properties: { deliveries: { type: "array", items: deliverySchema } },
          }),
          ...errors(401, 404, 429, 503),
        },
      },
    },
    "/v1/monitors/{id}/deliveries/{delivery_id}/redeliver": {
      post: {
        operationId: "redeliverMonitorBatch",
        tags,
        summary: "Send a batch again",
        description:
          "Free to ask. The batch goes again with the same `webhook-id`, before later ones, and costs 1 credit once accepted. Redelivering the batch a `failing` monitor stopped at resumes the monitor.",
        parameters: [
          idParameter,
          {
            name: "delivery_id",
            in: "path",
            required: true,
            schema: { type: "string", pattern: MONITOR_DELIVERY_ID.source },
          },
        ],
        responses: {
          ...answer("Queued. Costs nothing now.", oneDelivery, "202"),
          // 409: the monitor has no webhook_url, or the delivery is being sent already.
          ...errors(401, 404, 409, 429, 503),
        },
      },
    },
    "/v1/monitors/{id}/test": {
      post: {
        operationId: "testMonitorWebhook",
        tags,
        summary: "Send a test event",
        description:
          "Free. POSTs one signed `monitor.test` event to the webhook now (one attempt, never retried) and answers how it went; it is listed in the delivery log.",
        parameters: [idParameter],
        responses: {
          ...answer("The test's delivery. Costs nothing.", oneDelivery),
          // 409: the monitor has no webhook_url, or the delivery is being sent already.
          ...errors(401, 404, 409, 429, 503),
        },
      },
    },
    "/v1/monitors/{id}/rotate-secret": {
      post: {
        operationId: "rotateMonitorWebhookSecret",
        tags,
        summary: "Rotate the webhook signing secret",
        description:
          "Free. Answers the new secret once. Until `previous_secret_expires_at` both secrets sign: `webhook-signature` carries both signatures, space-separated, so a receiver verifies with either.",
        parameters: [idParameter],
        responses: {
          ...answer("The new secret. Costs nothing.", {
            type: "object",
            required: ["webhook_secret", "previous_secret_expires_at"],
            properties: {
              webhook_secret: secretSchema,
              previous_secret_expires_at: { type: "integer", description: "Epoch seconds." },
            },
          }),
          // 409: the monitor has no webhook_url, or the delivery is being sent already.
          ...errors(401, 404, 409, 429, 503),
        },
      },
    },
  };
}
