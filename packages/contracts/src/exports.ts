/**
 * Export jobs (docs/api.md#exports): a community's or an author's posts or comments over a window,
 * fetched page by page in the background by `services/exports` and written as one file. What
 * crosses a boundary lives here: the request body the gateway validates, the job as callers see it,
 * the gateway ↔ exports service messages, the per-page debit billing applies, and the NATS names.
 *
 * The listing part of a request (source, window, q, fields) is validated by the same schema as
 * `GET /v1/posts` / `GET /v1/comments`, so an export pages exactly as a caller of the API would.
 */
import { z } from "zod";
import { ERRORS, SERVICE_REFUSAL_CODES, type ServiceRefusalCode } from "./errors.ts";
import { keyIdSchema, requestTokenSchema } from "./message-fields.ts";
import { type ListingParams, listCommentsParamsSchema, listPostsParamsSchema } from "./params.ts";
import { err, ok, type Result } from "./result.ts";
import { type RpcDecoded, type RpcReply, rpc } from "./rpc.ts";

/** The documented limits of export jobs (docs/api.md#exports). */
export const EXPORT_LIMITS = {
  /** Longest window between `after` and `before`. */
  maxWindowDays: 366,
  /**
   * Jobs one account may have queued, running or paused at once, over all its keys; a key made by
   * an operator (no account) counts as an account of its own.
   */
  maxActivePerAccount: 3,
  /** Rows asked of the upstream per page: the API's largest page. */
  pageSize: 100,
  /** The highest credit ceiling a caller may set. */
  maxCeilingCredits: 100_000,
} as const;

export const EXPORT_FORMATS = ["jsonl", "csv", "parquet"] as const;
export const EXPORT_KINDS = ["posts", "comments"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_STATES = [
  "quoted",
  "queued",
  "running",
  "paused",
  "done",
  "failed",
  "cancelled",
] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

/** The export id: `exp_` and 24 hex digits. */
export const EXPORT_ID_PATTERN = /^exp_[0-9a-f]{24}$/;

/**
 * The body of `POST /v1/exports`, before the listing part is checked against the listing schema.
 * Unknown fields are refused, as unknown query parameters are.
 */
export const exportBodySchema = z.strictObject({
  kind: z.enum(EXPORT_KINDS, { error: "must be posts or comments" }),
  // The listing fields are checked by the listing schema (parseExportRequest); their meta is how
  // the OpenAPI document describes them.
  subreddit: z
    .unknown()
    .optional()
    .meta({ type: "string", description: "The community (give this or author)." }),
  author: z
    .unknown()
    .optional()
    .meta({ type: "string", description: "The author (give this or subreddit)." }),
  after: z.unknown().meta({
    type: ["integer", "string"],
    description: `Start of the window (exclusive): epoch seconds, an ISO date, or a relative form such as 30d, as the listing endpoints' after. At most ${EXPORT_LIMITS.maxWindowDays} days before before.`,
  }),
  before: z.unknown().meta({
    type: ["integer", "string"],
    description: "End of the window (exclusive), in the same forms as after.",
  }),
  q: z
    .unknown()
    .optional()
    .meta({ type: "string", description: "Exact-phrase filter, as on the listing endpoints." }),
  fields: z.unknown().optional().meta({
    type: "string",
    description:
      "Comma-separated fields to keep, as on the listing endpoints; id and created_utc are always kept.",
  }),
  format: z.enum(EXPORT_FORMATS, { error: "must be jsonl, csv or parquet" }).default("jsonl").meta({
    description:
      "csv: RFC 4180, CRLF; a text cell starting with =, +, -, @, a tab or a carriage return gets a leading ' (against spreadsheet formulas); numbers are written as they are.",
  }),
  gzip: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "Gzip the file (jsonl and csv only)." }),
  max_credits: z
    .number({ error: `must be an integer from 1 to ${EXPORT_LIMITS.maxCeilingCredits}` })
    .int({ error: `must be an integer from 1 to ${EXPORT_LIMITS.maxCeilingCredits}` })
    .min(1, { error: `must be an integer from 1 to ${EXPORT_LIMITS.maxCeilingCredits}` })
    .max(EXPORT_LIMITS.maxCeilingCredits, {
      error: `must be an integer from 1 to ${EXPORT_LIMITS.maxCeilingCredits}`,
    })
    .optional()
    .meta({
      description: "The credit ceiling; default the quote's own (the estimate plus a fifth, plus 2).",
    }),
  confirm: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta({ description: "Start at once; otherwise the answer is only a quote, started later with /start." }),
});

/** What an export fetches: the listing parameters each page is asked with, and the output. */
export const exportQuerySchema = z.object({
  kind: z.enum(EXPORT_KINDS),
  subreddit: z.string().optional(),
  author: z.string().optional(),
  after: z.number().int(),
  before: z.number().int(),
  q: z.string().optional(),
  fields: z.string().optional(),
  format: z.enum(EXPORT_FORMATS),
  gzip: z.boolean(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;

export interface ExportRequest {
  readonly query: ExportQuery;
  readonly maxCredits?: number;
  readonly confirm: boolean;
}

/**
 * Checks a `POST /v1/exports` body; the error names the first bad field, as the API's 400s do.
 * `now` (epoch seconds) resolves relative bounds such as `30d`.
 */
export function parseExportRequest(body: unknown): Result<ExportRequest, string> {
  const outer = exportBodySchema.safeParse(body ?? {});
  if (!outer.success) return err(describeIssue(outer.error.issues[0]));
  const request = outer.data;
  if ((request.subreddit === undefined) === (request.author === undefined)) {
    return err("give exactly one source: subreddit or author");
  }
  if (request.gzip && request.format === "parquet") {
    return err("gzip: applies to jsonl and csv only (parquet is compressed inside the file)");
  }
  const listing = { ...pickListing(request), sort: "asc", limit: EXPORT_LIMITS.pageSize };
  const schema = request.kind === "posts" ? listPostsParamsSchema : listCommentsParamsSchema;
  const parsed = schema.safeParse(listing);
  if (!parsed.success) return err(describeIssue(parsed.error.issues[0]));
  const params = parsed.data as ListingParams;
  const after = params.after as number;
  const before = params.before as number;
  if (before - after > EXPORT_LIMITS.maxWindowDays * 86_400) {
    return err(`before: the window may span at most ${EXPORT_LIMITS.maxWindowDays} days`);
  }
  const query: ExportQuery = {
    kind: request.kind,
    ...(params.subreddit === undefined ? {} : { subreddit: params.subreddit }),
    ...(params.author === undefined ? {} : { author: params.author }),
    after,
    before,
    ...(params.q === undefined ? {} : { q: params.q }),
    ...(params.fields === undefined ? {} : { fields: withKeyFields(params.fields) }),
    format: request.format,
    gzip: request.gzip,
  };
  return ok({ query, maxCredits: request.max_credits, confirm: request.confirm });
}

/** The optional body of `POST /v1/exports/{id}/resume`: a new, higher credit ceiling. */
export const resumeBodySchema = z.strictObject({
  max_credits: exportBodySchema.shape.max_credits.meta({
    description:
      "A new credit ceiling, above the credits already spent: needed to resume a job stopped at its ceiling.",
  }),
});

export function parseResumeBody(body: unknown): Result<{ maxCredits?: number }, string> {
  const parsed = resumeBodySchema.safeParse(body ?? {});
  if (!parsed.success) return err(describeIssue(parsed.error.issues[0]));
  return ok({ maxCredits: parsed.data.max_credits });
}

function pickListing(request: z.output<typeof exportBodySchema>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of ["subreddit", "author", "after", "before", "q", "fields"] as const) {
    if (request[name] !== undefined) picked[name] = request[name];
  }
  return picked;
}

/**
 * An export always carries each row's `id` and `created_utc`: the worker pages by the one and
 * deduplicates by the other, and a file without them could not be checked against the API.
 */
function withKeyFields(fields: string): string {
  const names = fields.split(",");
  for (const key of ["id", "created_utc"]) if (!names.includes(key)) names.push(key);
  return names.join(",");
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return "invalid body";
  const path = issue.path.join(".");
  // A required field left out (`after`, `before`), said as parseExportRequest has always said it.
  if (issue.code === "invalid_type" && issue.expected === "nonoptional") return `${path}: is required`;
  if (issue.code === "unrecognized_keys")
    return `unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

/** The listing parameters of one page, as the adapter receives them (the API's own). */
export function exportPageParams(query: ExportQuery, after: number): ListingParams {
  return {
    ...(query.subreddit === undefined ? {} : { subreddit: query.subreddit }),
    ...(query.author === undefined ? {} : { author: query.author }),
    after,
    before: query.before,
    limit: EXPORT_LIMITS.pageSize,
    sort: "asc",
    ...(query.q === undefined ? {} : { q: query.q }),
    ...(query.fields === undefined ? {} : { fields: query.fields }),
  } as ListingParams;
}

const count = z.number().int().min(0);

export const exportQuoteSchema = z
  .object({
    estimated_rows: count,
    estimated_pages: count,
    method: z.string().meta({ description: "How the estimate was made." }),
    ceiling_credits: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The job never spends more than this; it stops there and says so." }),
    eta_seconds: count.meta({ description: "At the export share of the upstream budget." }),
  })
  .meta({ id: "ExportQuote" });
export type ExportQuote = z.infer<typeof exportQuoteSchema>;

export const exportManifestSchema = z
  .object({
    rows: count,
    bytes: count,
    sha256: z.string(),
    format: z.enum(EXPORT_FORMATS),
    gzip: z.boolean(),
    query: exportQuerySchema.omit({ format: true, gzip: true }),
    covered: z
      .object({
        first_created_utc: z.number().int().nullable(),
        last_created_utc: z.number().int().nullable(),
        after: z.number().int().meta({ description: "The window the file covers starts after this." }),
        before: z.number().int().meta({
          description:
            "The window the file covers ends before this: every row of the query in (after, before) is in the file. The query's `before` when complete, else one second past the last page fetched.",
        }),
      })
      .meta({ description: "The time span the rows actually cover." }),
    complete: z.boolean().meta({
      description:
        "False when the export ended early (at its credit ceiling, cancelled or failed): the file then holds exactly the pages that were paid for.",
    }),
    pages: count,
    created_at: z.string(),
  })
  .meta({ id: "ExportManifest" });
export type ExportManifest = z.infer<typeof exportManifestSchema>;

export const exportJobSchema = z
  .object({
    id: z.string().regex(EXPORT_ID_PATTERN),
    state: z.enum(EXPORT_STATES),
    query: exportQuerySchema,
    quote: exportQuoteSchema,
    progress: z.object({
      pages_done: count,
      rows_done: count,
      credits_spent: count,
      /** created_utc up to which rows are written. */
      cursor: z.number().int(),
      percent: z.number().min(0).max(100),
      eta_seconds: count.nullable(),
    }),
    /** Why the job is paused, failed or stopped early; null otherwise. */
    reason: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    /**
     * Once done, or once ended early with paid pages: the manifest (`complete` says which), and
     * where to download the file with the same key.
     */
    result: z.object({ file_url: z.string(), manifest: exportManifestSchema }).nullable(),
  })
  .meta({ id: "ExportJob" });
export type ExportJob = z.infer<typeof exportJobSchema>;

/* ---------- gateway ↔ exports service ---------- */

const exportId = z.string().regex(EXPORT_ID_PATTERN);

/** How many of a key's exports `list` answers with. */
export const EXPORT_LIST_LIMIT = 50;
export const exportListSchema = z.object({ jobs: z.array(exportJobSchema) });
export type ExportList = z.infer<typeof exportListSchema>;

/** The file's storage location for a download; only for its owner and only once done. */
export const exportFileSchema = z.object({
  path: z.string(),
  bytes: count,
  content_type: z.string(),
  filename: z.string(),
});
export type ExportFile = z.infer<typeof exportFileSchema>;

export const exportRefusalSchema = z.object({
  outcome: z.literal("refused"),
  status: z.number().int(),
  /** The catalog code (docs/api.md#errors); `status` is its status. */
  code: z.enum(SERVICE_REFUSAL_CODES),
  message: z.string(),
  /** For a 429: when to ask again (the next minute for the quote limit, the budget's estimate). */
  retry_after_seconds: z.number().int().min(1).optional(),
});
export type ExportRefusal = z.infer<typeof exportRefusalSchema>;

/** The reply of a command about one job: the job as it is now, or a refusal. */
export const exportJobReplySchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("ok"), job: exportJobSchema }),
  exportRefusalSchema,
]);
export type ExportJobReply = z.infer<typeof exportJobReplySchema>;

/** The reply of `file`: the job, its file and a short-lived signed URL of the exports service that serves it. */
export const exportFileReplySchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("ok"),
    job: exportJobSchema,
    file: exportFileSchema.extend({ download_url: z.string() }),
  }),
  exportRefusalSchema,
]);
export type ExportFileReply = z.infer<typeof exportFileReplySchema>;

/** An exports command refused: the catalog code, its status, and the service's own sentence. */
export function exportRefusal(
  code: ServiceRefusalCode,
  message: string,
  retryAfterSeconds?: number,
): ExportRefusal {
  const retry = retryAfterSeconds === undefined ? {} : { retry_after_seconds: retryAfterSeconds };
  return { outcome: "refused", status: ERRORS[code].status, code, message, ...retry };
}

const asker = { key_id: keyIdSchema };
const aboutJob = { key_id: keyIdSchema, id: exportId };
/** The key's balance as admission read it, for the refusal of a start the balance cannot pay. */
const balance = count;
/** Sent with a command the client sent under `Idempotency-Key` (message-fields.ts). */
const once = { request_token: requestTokenSchema.optional() };

/**
 * The exports service's calls (the convention of rpc.ts, as BILLING_RPC): one subject each
 * (`buildSubjects(ns).exports.commands[name]`), each with its own request and reply schemas, each
 * about the asking key's own jobs only. Every
 * call but `create` is safe to send again: a command a job's state already reflects is refused
 * (409) and changes nothing; a second `create` would quote a second job. With a `request_token`, a
 * `create`, `start` or `resume` sent again is answered with the job the first made or moved, as it
 * is now: the same job, started once.
 */
export const EXPORTS_RPC = {
  create: rpc(z.strictObject({ ...asker, balance, body: z.unknown(), ...once }), exportJobReplySchema, false),
  show: rpc(z.strictObject(aboutJob), exportJobReplySchema, true),
  start: rpc(z.strictObject({ ...aboutJob, balance, ...once }), exportJobReplySchema, true),
  pause: rpc(z.strictObject(aboutJob), exportJobReplySchema, true),
  /** `max_credits` raises the ceiling of a job stopped at it (docs/api.md#exports). */
  resume: rpc(
    z.strictObject({
      ...aboutJob,
      balance,
      max_credits: z.number().int().min(1).max(EXPORT_LIMITS.maxCeilingCredits).optional(),
      ...once,
    }),
    exportJobReplySchema,
    true,
  ),
  cancel: rpc(z.strictObject(aboutJob), exportJobReplySchema, true),
  /** The file's storage location and a short-lived signed URL, for the key's own finished job. */
  file: rpc(z.strictObject(aboutJob), exportFileReplySchema, true),
  /** The key's most recent exports, newest first (`GET /v1/exports`). */
  list: rpc(z.strictObject(asker), exportListSchema, true),
} as const;

export type ExportsRpc = typeof EXPORTS_RPC;
export type ExportsRpcName = keyof ExportsRpc;
export type ExportsRpcDecoded<N extends ExportsRpcName> = RpcDecoded<ExportsRpc, N>;
export type ExportsRpcReply<N extends ExportsRpcName> = RpcReply<ExportsRpc, N>;
export const EXPORTS_RPC_NAMES = Object.keys(EXPORTS_RPC) as ExportsRpcName[];

/** The credits one upstream page of an export costs (docs/api.md#exports). */
export const EXPORT_PAGE_CREDITS = 1;

/* ---------- NATS names ---------- */

export interface ExportSubjects {
  /** Request-reply: the calls of EXPORTS_RPC, one subject each, served by every exports replica. */
  readonly commands: { readonly [N in ExportsRpcName]: string };
  /** JetStream work queue subject: one message per job to run. */
  readonly jobs: string;
  readonly jobStream: string;
  readonly jobConsumer: string;
  readonly queueGroup: string;
}

/** Part of `buildSubjects(namespace)`, which checks the namespace. */
export function buildExportSubjects(namespace: string): ExportSubjects {
  const dot = namespace === "" ? "" : `${namespace}.`;
  const streamPrefix = namespace === "" ? "" : `${namespace.toUpperCase().replace(/-/g, "_")}_`;
  return Object.freeze({
    commands: Object.freeze(
      Object.fromEntries(EXPORTS_RPC_NAMES.map((name) => [name, `${dot}exports.${name}`])) as {
        [N in ExportsRpcName]: string;
      },
    ),
    jobs: `${dot}exports.jobs`,
    jobStream: `${streamPrefix}EXPORT_JOBS`,
    jobConsumer: "exports-workers",
    queueGroup: "exports",
  });
}

/** The priority class an export's upstream pages carry, for the upstream budget's scheduler. */
export const EXPORTS_PRIORITY = "exports";
