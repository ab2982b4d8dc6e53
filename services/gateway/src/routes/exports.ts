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
import { Readable } from "node:stream";
import {
  EXPORT_ID_PATTERN,
  type ExportCommand,
  type ExportReply,
  exportReplySchema,
  type ManagementRoute,
  managementRoute,
  noQuerySchema,
  parseResumeBody,
  type Subjects,
} from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GatewayContext } from "../context.ts";
import type { Failure } from "../failure.ts";
import {
  answerManaged,
  type Managed,
  refusedBy,
  serviceUnavailable,
  takeIn,
} from "../http/managed-command.ts";
import { acceptJsonObjectBodies, jsonObjectBody } from "../http/read-body.ts";
import { sendError } from "../http/send-error.ts";

/** Quoting samples the upstream: a few pages, each within the adapter timeout. */
const COMMAND_TIMEOUT_MS = 30_000;
const ACTIONS = ["start", "pause", "resume", "cancel"] as const;
/** An export's request is a few hundred bytes; the limit is the gateway's own for any body. */
const EXPORT_BODY_LIMIT_BYTES = 1_048_576;

export const EXPORT_PATHS = [
  "/v1/exports",
  "/v1/exports/{id}",
  "/v1/exports/{id}/file",
  ...ACTIONS.map((action) => `/v1/exports/{id}/${action}`),
] as const;

/** The declared route of each command (MANAGEMENT_ROUTES): whether it takes `Idempotency-Key`. */
const ROUTE_OF: Record<Exclude<ExportCommand["action"], "list">, ManagementRoute> = {
  create: managementRoute("POST", "/v1/exports"),
  show: managementRoute("GET", "/v1/exports/{id}"),
  start: managementRoute("POST", "/v1/exports/{id}/start"),
  pause: managementRoute("POST", "/v1/exports/{id}/pause"),
  resume: managementRoute("POST", "/v1/exports/{id}/resume"),
  cancel: managementRoute("POST", "/v1/exports/{id}/cancel"),
  file: managementRoute("GET", "/v1/exports/{id}/file"),
};

const NO_SUCH_EXPORT = refusedBy("resource_not_found", "no such export", { param: "id" });

type Answered = { readonly reply: ExportReply & { outcome: "ok" } } | { readonly failure: Failure };

export async function registerExportRoutes(app: FastifyInstance, ctx: GatewayContext, all: Subjects) {
  const subjects = all.exports;
  acceptJsonObjectBodies(app, ctx, EXPORT_BODY_LIMIT_BYTES);

  /** Takes the request in, asks the exports service, and answers its refusal or hands on its job. */
  const forward = async (
    request: FastifyRequest,
    reply: FastifyReply,
    action: keyof typeof ROUTE_OF,
    command: (keyId: string, balance: number) => ExportCommand | Failure,
  ): Promise<{ sent: FastifyReply } | { managed: Managed<unknown>; answered: Answered }> => {
    const route = { operation: "exports", query: noQuerySchema, idempotent: ROUTE_OF[action].idempotent };
    const taken = await takeIn(ctx, route, request, reply);
    if ("sent" in taken) return taken;
    const { key, admitted } = taken.managed;
    const built = command(key.id, admitted.balance);
    if ("code" in built) return { managed: taken.managed, answered: { failure: built } };
    const answer = await requestJson(
      ctx.nats,
      subjects.commands,
      built,
      exportReplySchema,
      COMMAND_TIMEOUT_MS,
    );
    if (!answer.ok) {
      const failure = serviceUnavailable(`exports: ${answer.error.message}`);
      return { managed: taken.managed, answered: { failure } };
    }
    const value = answer.value;
    if (value.outcome === "ok") return { managed: taken.managed, answered: { reply: value } };
    const failure = refusedBy(value.code, value.message, { retryAfterSeconds: value.retry_after_seconds });
    return { managed: taken.managed, answered: { failure } };
  };

  const answerJob = (
    request: FastifyRequest,
    reply: FastifyReply,
    forwarded: Awaited<ReturnType<typeof forward>>,
    status: (job: ExportReply & { outcome: "ok" }) => number = () => 200,
  ) => {
    if ("sent" in forwarded) return forwarded.sent;
    const { managed, answered } = forwarded;
    return answerManaged(
      ctx,
      request,
      reply,
      managed,
      "failure" in answered ? answered : { value: answered.reply.job, status: status(answered.reply) },
    );
  };

  app.post("/v1/exports", async (request, reply) => {
    const body = jsonObjectBody(request.body);
    if (!body.ok) return sendError(reply, body.error, ctx.errors);
    const forwarded = await forward(request, reply, "create", (keyId, balance) => ({
      action: "create",
      key_id: keyId,
      balance,
      body: body.value,
    }));
    return answerJob(request, reply, forwarded, (answer) => (answer.job.state !== "quoted" ? 202 : 201));
  });

  app.get("/v1/exports/:id", async (request, reply) => {
    const id = idOf(request);
    const forwarded = await forward(request, reply, "show", (keyId) =>
      id === undefined ? NO_SUCH_EXPORT : { action: "show", key_id: keyId, id },
    );
    return answerJob(request, reply, forwarded);
  });

  for (const action of ACTIONS) {
    app.post(`/v1/exports/:id/${action}`, async (request, reply) => {
      const id = idOf(request);
      // Only resume reads a body: `max_credits`, a higher ceiling (docs/api.md#exports).
      const resumed = action === "resume" ? resumeBody(request.body) : {};
      const forwarded = await forward(request, reply, action, (keyId, balance) =>
        "code" in resumed
          ? resumed
          : id === undefined
            ? NO_SUCH_EXPORT
            : { action, key_id: keyId, balance, id, ...resumed },
      );
      return answerJob(request, reply, forwarded);
    });
  }

  app.get("/v1/exports/:id/file", async (request, reply) => {
    const id = idOf(request);
    const forwarded = await forward(request, reply, "file", (keyId) =>
      id === undefined ? NO_SUCH_EXPORT : { action: "file", key_id: keyId, id },
    );
    if ("sent" in forwarded) return forwarded.sent;
    const { answered } = forwarded;
    if ("failure" in answered) return sendError(reply, answered.failure, ctx.errors);
    const answer = answered.reply;
    if (answer.file === undefined) return sendError(reply, { code: "internal_error" }, ctx.errors);
    const file = await fetch(answer.file.download_url).catch((error: unknown) => error as Error);
    if (file instanceof Error || !file.ok || file.body === null) {
      const why = file instanceof Error ? file.message : `status ${file.status}`;
      return sendError(reply, serviceUnavailable(`export file: ${why}`), ctx.errors);
    }
    return reply
      .code(200)
      .type(answer.file.content_type)
      .header("content-length", String(answer.file.bytes))
      .header("content-disposition", `attachment; filename="${answer.file.filename}"`)
      .header("x-export-sha256", answer.job.result?.manifest.sha256 ?? "")
      .send(Readable.fromWeb(file.body as import("node:stream/web").ReadableStream));
  });
}

/** A malformed id names no job: answered as an unknown one, after authentication. */
function idOf(request: FastifyRequest): string | undefined {
  const { id } = request.params as { id?: string };
  return id !== undefined && EXPORT_ID_PATTERN.test(id) ? id : undefined;
}

/** A resume's body: nothing, or `max_credits` above what the export has spent. */
function resumeBody(body: unknown): { max_credits?: number } | Failure {
  const read = jsonObjectBody(body);
  if (!read.ok) return read.error;
  const resume = parseResumeBody(read.value);
  if (!resume.ok) return { code: "invalid_parameter", detail: resume.error, param: "max_credits" };
  return resume.value.maxCredits === undefined ? {} : { max_credits: resume.value.maxCredits };
}
