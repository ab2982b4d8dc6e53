/**
 * The export endpoints in the OpenAPI document (docs/api.md#exports). They take a JSON body and
 * answer with the job (`ExportJob`), so they are described here rather than from OPERATIONS, whose
 * entries are the GET data endpoints.
 */
import { type ErrorCode, errorBody } from "./errors.ts";
import { EXPORT_LIMITS } from "./exports.ts";
import { type JsonObject, schemaRef } from "./openapi-extras.ts";

export const EXPORTS_TAG = {
  name: "Exports",
  description:
    "A community's or an author's posts or comments over a date range as one file (JSONL, CSV or Parquet), fetched in the background: a free quote first, then 1 credit per upstream page as pages arrive, never past the quote's ceiling.",
} as const;

const idParameter: JsonObject = {
  name: "id",
  in: "path",
  required: true,
  description: "The export's id, as `POST /v1/exports` returned it.",
  schema: { type: "string", pattern: "^exp_[0-9a-f]{24}$" },
  example: "exp_0f3a9c1e5b7d2a4c6e8f0a1b",
};

const jobAnswer = (description: string): JsonObject => ({
  description,
  headers: {
    "x-credits-used": { $ref: "#/components/headers/CreditsUsed" },
    "x-credits-remaining": { $ref: "#/components/headers/CreditsRemaining" },
    "x-request-id": { $ref: "#/components/headers/RequestId" },
    "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
    RateLimit: { $ref: "#/components/headers/RateLimit" },
  },
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["data", "_service"],
        properties: {
          data: { $ref: schemaRef("ExportJob") },
          _service: { $ref: schemaRef("CreditServiceMeta") },
        },
      },
    },
  },
});

const refusal = (description: string, example: string, code: ErrorCode): JsonObject => ({
  description,
  headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
  content: {
    "application/json": { schema: { $ref: schemaRef("Error") }, example: errorBody(code, example) },
  },
});

const common: JsonObject = {
  "401": { $ref: "#/components/responses/Error401" },
  "429": { $ref: "#/components/responses/Error429" },
  "503": { $ref: "#/components/responses/Error503" },
};
const notFound = refusal(
  "No export with this id for this key (another key's export is not shown).",
  "no such export",
  "resource_not_found",
);
const wrongState = (what: string) =>
  refusal(`The export's state does not allow ${what}.`, "this export is done", "state_conflict");

const resumeBody: JsonObject = {
  required: false,
  content: {
    "application/json": {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          max_credits: {
            type: "integer",
            minimum: 1,
            maximum: EXPORT_LIMITS.maxCeilingCredits,
            description:
              "A new credit ceiling, above the credits already spent: needed to resume a job stopped at its ceiling.",
          },
        },
      },
      example: { max_credits: 40 },
    },
  },
};

const requestBody: JsonObject = {
  required: true,
  content: {
    "application/json": {
      schema: {
        type: "object",
        additionalProperties: false,
        required: ["kind", "after", "before"],
        properties: {
          kind: { type: "string", enum: ["posts", "comments"] },
          subreddit: { type: "string", description: "The community (give this or author)." },
          author: { type: "string", description: "The author (give this or subreddit)." },
          after: {
            type: ["integer", "string"],
            description: `Start of the window (exclusive): the forms of the listing endpoints' after. At most ${EXPORT_LIMITS.maxWindowDays} days before before.`,
          },
          before: { type: ["integer", "string"], description: "End of the window (exclusive)." },
          q: { type: "string", description: "Exact-phrase filter, as on the listing endpoints." },
          fields: {
            type: "string",
            description:
              "Comma-separated fields to keep, as on the listing endpoints; id and created_utc are always kept.",
          },
          format: {
            type: "string",
            enum: ["jsonl", "csv", "parquet"],
            default: "jsonl",
            description:
              "csv: RFC 4180, CRLF; a text cell starting with =, +, -, @, a tab or a carriage return gets a leading ' (against spreadsheet formulas); numbers are written as they are.",
          },
          gzip: { type: "boolean", default: false, description: "Gzip the file (jsonl and csv only)." },
          max_credits: {
            type: "integer",
            minimum: 1,
            maximum: EXPORT_LIMITS.maxCeilingCredits,
            description: "The credit ceiling; default the quote's own (the estimate plus a fifth, plus 2).",
          },
          confirm: {
            type: "boolean",
            default: false,
            description: "Start at once; otherwise the answer is only a quote, started later with /start.",
          },
        },
      },
      example: {
        kind: "posts",
        subreddit: "typescript",
        after: "2026-06-01",
        before: "2026-07-01",
        format: "parquet",
      },
    },
  },
};

export function describeExportEndpoints(): Record<string, JsonObject> {
  const action = (name: string, summary: string, description: string, conflict: string): JsonObject => ({
    post: {
      operationId: `${name}Export`,
      tags: [EXPORTS_TAG.name],
      summary,
      description: `${description} Free; rate limited by the key's own bucket, like /v1/account.`,
      parameters: [idParameter],
      ...(name === "resume" ? { requestBody: resumeBody } : {}),
      responses: {
        "200": jobAnswer("The export as it is now."),
        ...common,
        "404": notFound,
        "409": wrongState(conflict),
        ...(name === "start" || name === "resume"
          ? {
              "402": refusal(
                "The balance is below the quote's ceiling (the most the export can cost); the message names the shortfall in credits. Nothing is charged.",
                "insufficient credits: this export may cost up to 10 credits (its ceiling; estimated 6) and the balance is 1: 9 more credits are needed, or set a lower max_credits; nothing was charged",
                "insufficient_credits",
              ),
            }
          : {}),
      },
    },
  });
  return {
    "/v1/exports": {
      post: {
        operationId: "createExport",
        tags: [EXPORTS_TAG.name],
        summary: "Quote an export, and start it with confirm",
        description: `Answers at once with the export's id and its quote: the estimated rows and pages (and how they were estimated), the credit ceiling the job never exceeds and an ETA. A quote costs nothing. With \`confirm: true\` the job starts at once (202); otherwise start it with POST /v1/exports/{id}/start. An account may have ${EXPORT_LIMITS.maxActivePerAccount} exports queued, running or paused at once over all its keys (429 past it); the window spans at most ${EXPORT_LIMITS.maxWindowDays} days. A quote reads the archive that every customer shares, so a key may ask at most 10 a minute (429 with Retry-After past it).`,
        requestBody,
        responses: {
          "201": jobAnswer("Quoted (state `quoted`); nothing charged."),
          "202": jobAnswer("Quoted and started (state `queued`)."),
          "400": refusal(
            "A field is missing, unknown or invalid; the message names it. Not charged.",
            "invalid parameter: kind: must be posts or comments",
            "invalid_parameter",
          ),
          "402": refusal(
            "With confirm: the balance is below the quote's ceiling (the most the export can cost); the message names the shortfall in credits. The quote is kept and nothing is charged.",
            "insufficient credits: this export may cost up to 10 credits (its ceiling; estimated 6) and the balance is 1: 9 more credits are needed, or set a lower max_credits; nothing was charged",
            "insufficient_credits",
          ),
          ...common,
        },
      },
    },
    "/v1/exports/{id}": {
      get: {
        operationId: "getExport",
        tags: [EXPORTS_TAG.name],
        summary: "An export's state, progress and, once done, its manifest",
        description:
          "State (quoted, queued, running, paused, done, failed, cancelled), pages and rows done, credits spent, percent of the window covered and an ETA; why it is paused or failed; once done the manifest and the file's URL. Free.",
        parameters: [idParameter],
        responses: { "200": jobAnswer("The export as it is now."), ...common, "404": notFound },
      },
    },
    "/v1/exports/{id}/start": action(
      "start",
      "Start a quoted export",
      "Starts a quoted export (state `queued`).",
      "a start (it was already started)",
    ),
    "/v1/exports/{id}/pause": action(
      "pause",
      "Pause an export",
      "Stops after the page under way; nothing is charged while paused.",
      "a pause (it has ended)",
    ),
    "/v1/exports/{id}/resume": action(
      "resume",
      "Resume a paused export, or one stopped at its credit ceiling",
      "Continues from the last page written. A job that stopped at its credit ceiling (`failed`, its file holding the paid pages) goes on from its checkpoint when `max_credits` raises the ceiling above the credits it has spent; with a balance below what the new ceiling allows it to spend it is refused with 402.",
      "a resume (it is not paused, or ended otherwise than at its ceiling, or max_credits is not above the credits spent)",
    ),
    "/v1/exports/{id}/cancel": action(
      "cancel",
      "Cancel an export",
      "Stops it for good; no page is charged after it.",
      "a cancel (it has ended)",
    ),
    "/v1/exports/{id}/file": {
      get: {
        operationId: "downloadExport",
        tags: [EXPORTS_TAG.name],
        summary: "Download a finished export's file",
        description:
          "The file, only to the key that started the export and only until it expires (`expires_at`). `x-export-sha256` carries the manifest's checksum. Free. An export that ended early (at its ceiling, cancelled or failed) after paid pages has a file too: exactly the paid rows, its manifest saying `complete: false` and the window `covered`.",
        parameters: [idParameter],
        responses: {
          "200": {
            description: "The file: JSONL, CSV (RFC 4180) or Parquet, gzipped when asked.",
            headers: {
              "x-request-id": { $ref: "#/components/headers/RequestId" },
              "x-export-sha256": {
                description: "SHA-256 of the file, as in the manifest.",
                schema: { type: "string" },
              },
            },
            content: {
              "application/x-ndjson": { schema: { type: "string" } },
              "text/csv": { schema: { type: "string" } },
              "application/vnd.apache.parquet": { schema: { type: "string", contentEncoding: "binary" } },
              "application/gzip": { schema: { type: "string", contentEncoding: "binary" } },
            },
          },
          ...common,
          "404": refusal(
            "No such export for this key, or its file has expired.",
            "no such export",
            "resource_not_found",
          ),
          "409": refusal(
            "The export is not done yet, or ended before any page was paid for.",
            "the export's file is not ready: the export is running",
            "state_conflict",
          ),
        },
      },
    },
  };
}
