/**
 * The monitors, their webhooks' deliveries and the exports routes, each a PublicRoute
 * (public-routes.ts) declared once (docs/api.md#monitors, #exports): method, path, path and query
 * parameters, body, what it answers, the errors it may answer, credits, whether it takes
 * `Idempotency-Key`, and its rate-limit class. The data and account routes are declared in
 * OPERATIONS; PUBLIC_ROUTES holds both.
 */
import { z } from "zod";
import { EDGE_ERROR_CODES, type ErrorCode } from "./errors.ts";
import {
  EXPORT_FORMATS,
  EXPORT_ID_PATTERN,
  EXPORT_LIMITS,
  EXPORT_LIST_LIMIT,
  exportBodySchema,
  exportJobSchema,
  exportListSchema,
  resumeBodySchema,
} from "./exports.ts";
import {
  changedMonitorSchema,
  createdMonitorSchema,
  deletedMonitorSchema,
  monitorDeliveriesSchema,
  monitorEstimateSchema,
  monitorItemsPageSchema,
  monitorListSchema,
  oneDeliverySchema,
  oneMonitorSchema,
  rotatedSecretSchema,
} from "./monitor-views.ts";
import {
  createMonitorSchema,
  DEFAULT_MONITOR_LIMITS,
  MONITOR_DELIVERY_ID,
  MONITOR_ID_PATTERN,
  MONITOR_PAGE_ITEMS,
  MONITOR_RETAINED_ITEMS,
  MONITOR_WEBHOOK_BATCH_ITEMS,
  monitorItemsQuerySchema,
  updateMonitorSchema,
} from "./monitors.ts";
import type { PublicRoute, RouteAnswer, RouteBody } from "./public-routes.ts";

export const MANAGEMENT_TAGS = {
  monitors: {
    name: "Monitors",
    description:
      "Watch a community or an author, optionally by phrase, with an optional backfill of history; pull the matched items, or have them POSTed to a webhook signed per Standard Webhooks. Managing is free; a pulled page holding an item, or a webhook batch the receiver accepted, costs 1 credit.",
  },
  exports: {
    name: "Exports",
    description:
      "A community's or an author's posts or comments over a date range as one file (JSONL, CSV or Parquet), fetched in the background: a free quote first, then 1 credit per upstream page as pages arrive, never past the quote's ceiling.",
  },
} as const;

/** What every management route may answer: the HTTP layer, the key and its bucket, a refused query, our faults. */
const COMMON_ERRORS = [
  ...EDGE_ERROR_CODES,
  "invalid_parameter",
  "missing_api_key",
  "invalid_api_key",
  "auth_failures_throttled",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];
const IDEMPOTENCY_ERRORS = [
  "idempotency_in_progress",
  "idempotency_response_not_kept",
  "idempotency_key_reused",
] as const satisfies readonly ErrorCode[];

const monitorId = z.object({
  id: z
    .string()
    .regex(MONITOR_ID_PATTERN)
    .meta({ description: "The monitor's id; another key's monitor is not found (404)." }),
});
const deliveryId = monitorId.extend({ delivery_id: z.string().regex(MONITOR_DELIVERY_ID) });
const exportId = z.object({
  id: z
    .string()
    .regex(EXPORT_ID_PATTERN)
    .meta({
      description: "The export's id, as `POST /v1/exports` returned it.",
      examples: ["exp_0f3a9c1e5b7d2a4c6e8f0a1b"],
    }),
});
const noPathParams = z.object({});

/** A route as declared below; `route()` makes the PublicRoute of it. */
interface Declared
  extends Omit<
    PublicRoute,
    "params" | "pathParams" | "body" | "errors" | "credits" | "idempotent" | "rateLimit"
  > {
  /** The path's parameters, each with its pattern and description. */
  readonly pathSchema?: z.ZodObject;
  /** The query it reads; none: any query parameter is refused (400). */
  readonly query?: z.ZodObject;
  readonly body?: RouteBody;
  readonly credits?: 0 | 1;
  /** A POST that creates work or a resource takes `Idempotency-Key` (docs/api.md#idempotency). */
  readonly idempotent?: boolean;
  /** What it may answer besides the common errors (and the idempotency ones when it is idempotent). */
  readonly refusals?: readonly ErrorCode[];
}

function route(declared: Declared): PublicRoute {
  const { refusals = [], pathSchema = noPathParams, query, ...rest } = declared;
  const idempotent = declared.idempotent ?? false;
  const errors = new Set<ErrorCode>([
    ...COMMON_ERRORS,
    ...(idempotent ? IDEMPOTENCY_ERRORS : []),
    ...refusals,
  ]);
  if (declared.body) errors.add("payload_too_large");
  if ("id" in pathSchema.shape) errors.add("resource_not_found");
  return {
    ...rest,
    params: z.strictObject({ ...pathSchema.shape, ...query?.shape }),
    pathParams: Object.keys(pathSchema.shape),
    body: declared.body ?? null,
    credits: declared.credits ?? 0,
    idempotent,
    // Every route spends a token of the key's own bucket; none takes the shared upstream budget.
    rateLimit: "key",
    errors: [...errors],
  };
}

const answer = (description: string, data: z.ZodType, status: 200 | 201 | 202 = 200): RouteAnswer => ({
  status,
  description,
  data,
  envelope: "credits",
});

const MONITORS = MANAGEMENT_TAGS.monitors.name;
const EXPORTS = MANAGEMENT_TAGS.exports.name;
const limits = DEFAULT_MONITOR_LIMITS;
/** 409 from a webhook command: the monitor has no webhook_url, or the delivery is being sent already. */
const WEBHOOK_REFUSALS = ["state_conflict"] as const satisfies readonly ErrorCode[];

const MONITOR_ROUTES: readonly PublicRoute[] = [
  route({
    operationId: "createMonitor",
    method: "POST",
    path: "/v1/monitors",
    tag: MONITORS,
    summary: "Create a monitor",
    description: `Free. An account holds at most ${limits.maxMonitorsPerAccount} monitors across all its keys (an operator's key, alone); one more is 409, uncharged. The interval is at least ${limits.minIntervalSeconds} s. The body is at most 8 KiB (413 beyond); a bad body is 400 naming every bad field. Answers the backfill's estimated upstream pages and maximum cost. A retry under the same \`Idempotency-Key\` whose first answer was lost gets the monitor that request made, with the same \`webhook_secret\` (409 \`state_conflict\` once that monitor was deleted).`,
    body: { schema: createMonitorSchema(limits), required: true },
    answers: [answer("Created. Costs nothing.", createdMonitorSchema, 201)],
    idempotent: true,
    refusals: ["monitor_limit_reached", "state_conflict"],
  }),
  route({
    operationId: "estimateMonitor",
    method: "POST",
    path: "/v1/monitors/estimate",
    tag: MONITORS,
    summary: "Estimate a monitor's backfill without creating it",
    description:
      "Free. The body is a create's, checked as a create checks it (400 naming every bad field; 409 when the account has no room for another monitor); the answer is the backfill's estimate a create would answer. Nothing is created, so it takes no `Idempotency-Key`.",
    body: { schema: createMonitorSchema(limits), required: true },
    answers: [answer("The estimate. Costs nothing.", monitorEstimateSchema)],
    refusals: ["monitor_limit_reached"],
  }),
  route({
    operationId: "listMonitors",
    method: "GET",
    path: "/v1/monitors",
    tag: MONITORS,
    summary: "List the key's monitors",
    description: "Free. Oldest first.",
    answers: [answer("The key's monitors. Costs nothing.", monitorListSchema)],
  }),
  route({
    operationId: "getMonitor",
    method: "GET",
    path: "/v1/monitors/{id}",
    tag: MONITORS,
    summary: "Read a monitor",
    description: "Free.",
    pathSchema: monitorId,
    answers: [answer("The monitor. Costs nothing.", oneMonitorSchema)],
  }),
  route({
    operationId: "updateMonitor",
    method: "PATCH",
    path: "/v1/monitors/{id}",
    tag: MONITORS,
    summary: "Change a monitor's phrase, interval or webhook, or pause it",
    description:
      "Free. `phrase: null` removes the phrase; `webhook_url: null` stops webhook delivery. A first `webhook_url` answers its `webhook_secret` once and delivers items matched from then on. `paused: false` resumes a `failing` monitor at the batch it stopped at. A monitor whose key was revoked can only be deleted (409).",
    pathSchema: monitorId,
    body: { schema: updateMonitorSchema(limits), required: true },
    answers: [answer("The changed monitor. Costs nothing.", changedMonitorSchema)],
    refusals: ["state_conflict"],
  }),
  route({
    operationId: "deleteMonitor",
    method: "DELETE",
    path: "/v1/monitors/{id}",
    tag: MONITORS,
    summary: "Delete a monitor and its undelivered items",
    description: "Free.",
    pathSchema: monitorId,
    answers: [answer("Deleted. Costs nothing.", deletedMonitorSchema)],
  }),
  route({
    operationId: "pullMonitorItems",
    method: "GET",
    path: "/v1/monitors/{id}/items",
    tag: MONITORS,
    summary: "Pull a monitor's matched items",
    description: `Up to ${MONITOR_PAGE_ITEMS} items after \`cursor\`, in delivery order. 1 credit for a page holding at least one item; an empty page is free and returns the same cursor. At zero balance (or a reached spend cap) a pull is 402, uncharged, and the monitor shows \`paused_for_credits\`; its items wait within the retention (about the newest ${MONITOR_RETAINED_ITEMS.toLocaleString("en-US")}) and the same cursor continues after a top-up.`,
    pathSchema: monitorId,
    query: monitorItemsQuerySchema,
    answers: [
      answer("A page of items. Costs 1 credit when it holds an item, else nothing.", monitorItemsPageSchema),
    ],
    credits: 1,
    refusals: ["insufficient_credits", "spend_cap_reached"],
  }),
  route({
    operationId: "listMonitorDeliveries",
    method: "GET",
    path: "/v1/monitors/{id}/deliveries",
    tag: MONITORS,
    summary: "The webhook delivery log",
    description: `Free. The newest 100 deliveries of the last 30 days, newest first, each with every attempt's time, status code, latency and error. A batch holds up to ${MONITOR_WEBHOOK_BATCH_ITEMS} items, POSTed as \`{type: "monitor.items", timestamp, data: {monitor_id, delivery_id, items}}\` with the Standard Webhooks headers.`,
    pathSchema: monitorId,
    answers: [answer("The log. Costs nothing.", monitorDeliveriesSchema)],
  }),
  route({
    operationId: "redeliverMonitorBatch",
    method: "POST",
    path: "/v1/monitors/{id}/deliveries/{delivery_id}/redeliver",
    tag: MONITORS,
    summary: "Send a batch again",
    description:
      "Free to ask. The batch goes again with the same `webhook-id`, before later ones, and costs 1 credit once accepted. Redelivering the batch a `failing` monitor stopped at resumes the monitor.",
    pathSchema: deliveryId,
    answers: [answer("Queued. Costs nothing now.", oneDeliverySchema, 202)],
    idempotent: true,
    refusals: WEBHOOK_REFUSALS,
  }),
  route({
    operationId: "testMonitorWebhook",
    method: "POST",
    path: "/v1/monitors/{id}/test",
    tag: MONITORS,
    summary: "Send a test event",
    description:
      "Free. POSTs one signed `monitor.test` event to the webhook now (one attempt, never retried) and answers how it went; it is listed in the delivery log.",
    pathSchema: monitorId,
    answers: [answer("The test's delivery. Costs nothing.", oneDeliverySchema)],
    refusals: WEBHOOK_REFUSALS,
  }),
  route({
    operationId: "rotateMonitorWebhookSecret",
    method: "POST",
    path: "/v1/monitors/{id}/rotate-secret",
    tag: MONITORS,
    summary: "Rotate the webhook signing secret",
    description:
      "Free. Answers the new secret once. Until `previous_secret_expires_at` both secrets sign: `webhook-signature` carries both signatures, space-separated, so a receiver verifies with either.",
    pathSchema: monitorId,
    answers: [answer("The new secret. Costs nothing.", rotatedSecretSchema)],
    // It makes a secret: a retry under the same key gets the same one, not a third.
    idempotent: true,
    refusals: WEBHOOK_REFUSALS,
  }),
];

const FREE_JOB_COMMAND = "Free; rate limited by the key's own bucket, like /v1/account.";
const theJob = (description = "The export as it is now.") => answer(description, exportJobSchema);

const EXPORT_ROUTES: readonly PublicRoute[] = [
  route({
    operationId: "createExport",
    method: "POST",
    path: "/v1/exports",
    tag: EXPORTS,
    summary: "Quote an export, and start it with confirm",
    description: `Answers at once with the export's id and its quote: the estimated rows and pages (and how they were estimated), the credit ceiling the job never exceeds and an ETA. A quote costs nothing. With \`confirm: true\` the job starts at once (202); otherwise start it with POST /v1/exports/{id}/start. An account may have ${EXPORT_LIMITS.maxActivePerAccount} exports queued, running or paused at once over all its keys (429 past it); the window spans at most ${EXPORT_LIMITS.maxWindowDays} days. A quote reads the archive that every customer shares, so an account may ask at most 10 a minute over all its keys (429 with Retry-After past it), and a quote is answered 429 with Retry-After while our shared upstream budget is spent (\`global_rate_limited\`) or the data source limits us (\`upstream_rate_limited\`). With confirm, a balance below the quote's ceiling (the most the export can cost) is 402 naming the shortfall; the quote is kept and nothing is charged.`,
    body: {
      schema: exportBodySchema,
      required: true,
      example: {
        kind: "posts",
        subreddit: "typescript",
        after: "2026-06-01",
        before: "2026-07-01",
        format: "parquet",
      },
    },
    answers: [
      answer("Quoted (state `quoted`); nothing charged.", exportJobSchema, 201),
      answer("Quoted and started (state `queued`).", exportJobSchema, 202),
    ],
    idempotent: true,
    refusals: [
      "insufficient_credits",
      "quote_rate_limited",
      "export_limit_reached",
      "global_rate_limited",
      "upstream_rate_limited",
    ],
  }),
  route({
    operationId: "listExports",
    method: "GET",
    path: "/v1/exports",
    tag: EXPORTS,
    summary: "List the key's exports",
    description: `${FREE_JOB_COMMAND} The key's ${EXPORT_LIST_LIMIT} most recent exports, newest first, each as \`GET /v1/exports/{id}\` answers it.`,
    answers: [answer("The key's exports. Costs nothing.", exportListSchema)],
  }),
  route({
    operationId: "getExport",
    method: "GET",
    path: "/v1/exports/{id}",
    tag: EXPORTS,
    summary: "An export's state, progress and, once done, its manifest",
    description:
      "State (quoted, queued, running, paused, done, failed, cancelled), pages and rows done, credits spent, percent of the window covered and an ETA; why it is paused or failed; once done the manifest and the file's URL. Free.",
    pathSchema: exportId,
    answers: [theJob()],
  }),
  route({
    operationId: "startExport",
    method: "POST",
    path: "/v1/exports/{id}/start",
    tag: EXPORTS,
    summary: "Start a quoted export",
    description: `Starts a quoted export (state \`queued\`); one already started is 409. A balance below the quote's ceiling is 402 naming the shortfall, nothing charged. ${FREE_JOB_COMMAND}`,
    pathSchema: exportId,
    answers: [theJob()],
    idempotent: true,
    refusals: ["state_conflict", "insufficient_credits", "export_limit_reached"],
  }),
  route({
    operationId: "pauseExport",
    method: "POST",
    path: "/v1/exports/{id}/pause",
    tag: EXPORTS,
    summary: "Pause an export",
    description: `Stops after the page under way; nothing is charged while paused. An export that has ended is 409. ${FREE_JOB_COMMAND}`,
    pathSchema: exportId,
    answers: [theJob()],
    refusals: ["state_conflict"],
  }),
  route({
    operationId: "resumeExport",
    method: "POST",
    path: "/v1/exports/{id}/resume",
    tag: EXPORTS,
    summary: "Resume a paused export, or one stopped at its credit ceiling",
    description: `Continues from the last page written. A job that stopped at its credit ceiling (\`failed\`, its file holding the paid pages) goes on from its checkpoint when \`max_credits\` raises the ceiling above the credits it has spent; with a balance below what the new ceiling allows it to spend it is refused with 402. A job not paused, ended otherwise than at its ceiling, or a \`max_credits\` not above the credits spent is 409. ${FREE_JOB_COMMAND}`,
    pathSchema: exportId,
    body: { schema: resumeBodySchema, required: false, example: { max_credits: 40 } },
    answers: [theJob()],
    // It starts the job's work again.
    idempotent: true,
    refusals: ["state_conflict", "insufficient_credits", "export_limit_reached"],
  }),
  route({
    operationId: "cancelExport",
    method: "POST",
    path: "/v1/exports/{id}/cancel",
    tag: EXPORTS,
    summary: "Cancel an export",
    description: `Stops it for good; no page is charged after it. An export that has ended is 409. ${FREE_JOB_COMMAND}`,
    pathSchema: exportId,
    answers: [theJob()],
    refusals: ["state_conflict"],
  }),
  route({
    operationId: "downloadExport",
    method: "GET",
    path: "/v1/exports/{id}/file",
    tag: EXPORTS,
    summary: "Download a finished export's file",
    description:
      "The file, only to the key that started the export and only until it expires (`expires_at`; 404 after). `x-export-sha256` carries the manifest's checksum. Free. An export that ended early (at its ceiling, cancelled or failed) after paid pages has a file too: exactly the paid rows, its manifest saying `complete: false` and the window `covered`. An export not done yet, or ended before any page was paid for, is 409.",
    pathSchema: exportId,
    answers: [
      {
        status: 200,
        description: `The file: ${EXPORT_FORMATS.join(", ")} (CSV per RFC 4180), gzipped when asked.`,
        file: [
          { mediaType: "application/x-ndjson", binary: false },
          { mediaType: "text/csv", binary: false },
          { mediaType: "application/vnd.apache.parquet", binary: true },
          { mediaType: "application/gzip", binary: true },
        ],
        headers: { "x-export-sha256": "SHA-256 of the file, as in the manifest." },
      },
    ],
    refusals: ["state_conflict"],
  }),
];

export const MANAGEMENT_ROUTES: readonly PublicRoute[] = [...MONITOR_ROUTES, ...EXPORT_ROUTES];
