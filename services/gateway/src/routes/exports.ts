/**
 * Export jobs (docs/api.md#exports): `POST /v1/exports`, `GET /v1/exports/{id}`,
 * `POST /v1/exports/{id}/start|pause|resume|cancel` and `GET /v1/exports/{id}/file`. These manage a
 * job and are free: like `GET /v1/account`, each is authenticated and spends one token of the key's
 * own bucket (no credit); the pages an export fetches are charged
 * by the exports service as they arrive. The gateway forwards each command, with the key's id and
 * the balance admission read, to the exports service over NATS; a job of another key is a 404
 * there. The file is fetched from the exports service through a signed link it gives only for the
 * key's own finished job, and streamed on to the caller.
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import {
  EXPORT_ID_PATTERN,
  type ExportCommand,
  type ExportReply,
  exportReplySchema,
  parseResumeBody,
  type Subjects,
} from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { admitThroughBilling } from "../admission.ts";
import type { GatewayContext } from "../context.ts";
import { authenticate } from "../http/authenticate.ts";
import { envelope, sendEnvelope } from "../http/envelope.ts";
import { setRateLimitHeaders } from "../http/rate-limit-headers.ts";
import { readBody } from "../http/read-body.ts";
import { sendError } from "../http/send-error.ts";

/** Quoting samples the upstream: a few pages, each within the adapter timeout. */
const COMMAND_TIMEOUT_MS = 30_000;
const ACTIONS = ["start", "pause", "resume", "cancel"] as const;

export const EXPORT_PATHS = [
  "/v1/exports",
  "/v1/exports/{id}",
  "/v1/exports/{id}/file",
  ...ACTIONS.map((action) => `/v1/exports/{id}/${action}`),
] as const;

export async function registerExportRoutes(app: FastifyInstance, ctx: GatewayContext, all: Subjects) {
  const subjects = all.exports;
  app.removeAllContentTypeParsers();
  // The body is read as bytes and parsed in the handler, so a bad one is a clear 400, never a 405.
  app.addContentTypeParser("*", (_request: FastifyRequest, payload: IncomingMessage) =>
    readBody(payload, ctx.body),
  );
  app.setErrorHandler(async (error: { statusCode?: number; message: string }, _request, reply) => {
    const code =
      error.statusCode === 413
        ? "payload_too_large"
        : error.statusCode === 408
          ? "request_timeout"
          : "invalid_parameter";
    return sendError(
      reply,
      { code, detail: code === "invalid_parameter" ? "the body could not be read" : undefined },
      ctx.errors,
    );
  });

  const forward = async (
    request: FastifyRequest,
    reply: FastifyReply,
    command: (keyId: string, balance: number) => ExportCommand | string,
  ) => {
    const key = await authenticate(request, ctx);
    if (!key.ok) return sendError(reply, key.error, ctx.errors);
    const admission = await admitThroughBilling(ctx, key.value, {
      requestId: request.id,
      operation: "exports",
      credits: 0,
    });
    if (admission.bucket) setRateLimitHeaders(reply, admission.bucket);
    if (!admission.ok) return sendError(reply, admission.error, ctx.errors);
    const built = command(key.value.id, admission.value.balance);
    if (typeof built === "string")
      return sendError(reply, { code: "invalid_parameter", detail: built }, ctx.errors);
    const answer = await requestJson(
      ctx.nats,
      subjects.commands,
      built,
      exportReplySchema,
      COMMAND_TIMEOUT_MS,
    );
    if (!answer.ok) {
      return sendError(
        reply,
        { code: "service_unavailable", retryAfterSeconds: 1, internal: answer.error.message },
        ctx.errors,
      );
    }
    return { reply: answer.value, balance: admission.value.balance };
  };

  const answerWith = (reply: FastifyReply, result: { reply: ExportReply; balance: number }, status = 200) => {
    const answer = result.reply;
    if (answer.outcome === "refused")
      return sendRefusal(reply, answer.status, answer.message, answer.retry_after_seconds);
    const service = { credits_used: 0, credits_remaining: result.balance };
    const body = envelope(Buffer.from(JSON.stringify(answer.job)), service);
    return sendEnvelope(reply.code(status), body, service).code(status);
  };

  app.post("/v1/exports", async (request, reply) => {
    const body = parseBody(request.body);
    const result = await forward(request, reply, (keyId, balance) =>
      typeof body === "string" ? body : { action: "create", key_id: keyId, balance, body: body.value },
    );
    if (!("reply" in result)) return result;
    return answerWith(
      reply,
      result,
      result.reply.outcome === "ok" && result.reply.job.state !== "quoted" ? 202 : 201,
    );
  });

  app.get("/v1/exports/:id", async (request, reply) => {
    const id = idOf(request);
    const result = await forward(request, reply, (keyId) =>
      id === undefined ? NO_SUCH_EXPORT(keyId) : { action: "show", key_id: keyId, id: id.id },
    );
    if (!("reply" in result)) return result;
    return answerWith(reply, result);
  });

  for (const action of ACTIONS) {
    app.post(`/v1/exports/:id/${action}`, async (request, reply) => {
      const id = idOf(request);
      // Only resume reads a body: `max_credits`, a higher ceiling (docs/api.md#exports).
      const resumed = action === "resume" ? resumeBody(request.body) : {};
      const result = await forward(request, reply, (keyId, balance) =>
        typeof resumed === "string"
          ? resumed
          : id === undefined
            ? NO_SUCH_EXPORT(keyId)
            : { action, key_id: keyId, balance, id: id.id, ...resumed },
      );
      if (!("reply" in result)) return result;
      return answerWith(reply, result);
    });
  }

  app.get("/v1/exports/:id/file", async (request, reply) => {
    const id = idOf(request);
    const result = await forward(request, reply, (keyId) =>
      id === undefined ? NO_SUCH_EXPORT(keyId) : { action: "file", key_id: keyId, id: id.id },
    );
    if (!("reply" in result)) return result;
    const answer = result.reply;
    if (answer.outcome === "refused")
      return sendRefusal(reply, answer.status, answer.message, answer.retry_after_seconds);
    if (answer.file === undefined) return sendError(reply, { code: "internal_error" }, ctx.errors);
    const file = await fetch(answer.file.download_url).catch((error: unknown) => error as Error);
    if (file instanceof Error || !file.ok || file.body === null) {
      const why = file instanceof Error ? file.message : `status ${file.status}`;
      return sendError(reply, { code: "service_unavailable", internal: `export file: ${why}` }, ctx.errors);
    }
    return reply
      .code(200)
      .type(answer.file.content_type)
      .header("content-length", String(answer.file.bytes))
      .header("content-disposition", `attachment; filename="${answer.file.filename}"`)
      .header("x-export-sha256", answer.job.result?.manifest.sha256 ?? "")
      .send(Readable.fromWeb(file.body as import("node:stream/web").ReadableStream));
  });

  /** A malformed id names no job: answered as an unknown one, after authentication. */
  function NO_SUCH_EXPORT(keyId: string): ExportCommand {
    return { action: "show", key_id: keyId, id: "exp_000000000000000000000000" };
  }
}

function idOf(request: FastifyRequest): { id: string } | undefined {
  const { id } = request.params as { id?: string };
  return id !== undefined && EXPORT_ID_PATTERN.test(id) ? { id } : undefined;
}

function parseBody(body: unknown): { value: unknown } | string {
  if (body === undefined || (Buffer.isBuffer(body) && body.length === 0)) return { value: {} };
  try {
    const value: unknown = JSON.parse(Buffer.isBuffer(body) ? body.toString("utf8") : String(body));
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return "the body must be a JSON object";
    return { value };
  } catch {
    return "the body is not valid JSON";
  }
}

function resumeBody(body: unknown): { max_credits?: number } | string {
  const parsed = parseBody(body);
  if (typeof parsed === "string") return parsed;
  const resume = parseResumeBody(parsed.value);
  if (!resume.ok) return resume.error;
  return resume.value.maxCredits === undefined ? {} : { max_credits: resume.value.maxCredits };
}

/** The exports service's refusal, as every error: exactly `{error}` with the right status. */
function sendRefusal(
  reply: FastifyReply,
  status: number,
  message: string,
  retryAfterSeconds?: number,
): FastifyReply {
  reply.errorCode = `export_${status}`;
  if (!reply.hasHeader("x-request-id")) reply.header("x-request-id", reply.request.id);
  if (status === 503) reply.header("retry-after", "1");
  // The exports service limits quotes per account and minute, and says when to come back.
  if (status === 429) reply.header("retry-after", String(retryAfterSeconds ?? 60));
  return reply
    .code(status)
    .type("application/json; charset=utf-8")
    .send(JSON.stringify({ error: message }));
}
