/**
 * Export jobs (docs/api.md#exports): `POST /v1/exports`, `GET /v1/exports`, `GET /v1/exports/{id}`,
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
  EXPORTS_RPC,
  type ExportJob,
  type ExportRefusal,
  type ExportsRpc,
  type PublicRoute,
  parseResumeBody,
  publicRoute,
  type Result,
  type Subjects,
} from "@rda/contracts";
import { type NatsRequestFailure, type RpcCaller, rpcCaller } from "@rda/service-kit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Failure, GatewayContext } from "../core/context.ts";
import {
  answerManaged,
  type Managed,
  refusedBy,
  serviceUnavailable,
  takeIn,
} from "../http/managed-command.ts";
import { acceptJsonObjectBodies, jsonObjectBody } from "../http/read-body.ts";
import { sendError } from "../http/send-error.ts";
import { fastifyPath, portalConfig } from "./index.ts";

/** Quoting samples the upstream: a few pages, each within the adapter timeout. */
const COMMAND_TIMEOUT_MS = 30_000;
/** An export's request is a few hundred bytes; the limit is the gateway's own for any body. */
const EXPORT_BODY_LIMIT_BYTES = 1_048_576;

type ExportsContext = GatewayContext & { readonly exports: RpcCaller<ExportsRpc> };

/** What the exports service answered a call (its `ok` reply), or why the request fails. */
type Answered<Reply> = { readonly reply: Reply } | { readonly failure: Failure };
type JobReply = { readonly outcome: "ok"; readonly job: ExportJob };

/** Who asks, and the balance admission read (for the refusal of a start the balance cannot pay). */
interface Asker {
  readonly keyId: string;
  readonly balance: number;
  /** The request's token under `Idempotency-Key` (managed-command.ts), for the commands that take one. */
  readonly requestToken: string | undefined;
}

/** The `request_token` field of a call, when the request came with one. */
const tokenOf = ({ requestToken }: Asker) =>
  requestToken === undefined ? {} : { request_token: requestToken };

/** Each declared route, how it asks the exports service, and its success status. */
interface Served {
  readonly route: PublicRoute;
  readonly ask: (ctx: ExportsContext, request: FastifyRequest, asker: Asker) => Promise<Answered<JobReply>>;
  readonly status?: (job: ExportJob) => number;
}

const NO_SUCH_EXPORT = refusedBy("resource_not_found", "no such export", { param: "id" });

type AboutJob<Reply> = (
  ctx: ExportsContext,
  id: string,
  request: FastifyRequest,
  asker: Asker,
) => Promise<Answered<Reply>>;

/** A command about one job, or the not-found refusal when the path names no job. */
const aboutJob =
  <Reply>(run: AboutJob<Reply>) =>
  async (ctx: ExportsContext, request: FastifyRequest, asker: Asker): Promise<Answered<Reply>> => {
    const id = idOf(request);
    return id === undefined ? { failure: NO_SUCH_EXPORT } : run(ctx, id, request, asker);
  };

const SERVED: readonly Served[] = [
  {
    route: publicRoute("createExport"),
    ask: async (ctx, request, asker) => {
      const body = jsonObjectBody(request.body);
      if (!body.ok) return { failure: body.error };
      const { keyId, balance } = asker;
      return answerOf(
        await ctx.exports.call("create", { key_id: keyId, balance, body: body.value, ...tokenOf(asker) }),
      );
    },
    status: (job) => (job.state !== "quoted" ? 202 : 201),
  },
  {
    route: publicRoute("getExport"),
    ask: aboutJob(async (ctx, id, _request, { keyId }) =>
      answerOf(await ctx.exports.call("show", { key_id: keyId, id })),
    ),
  },
  {
    route: publicRoute("startExport"),
    ask: aboutJob(async (ctx, id, _request, asker) =>
      answerOf(
        await ctx.exports.call("start", {
          key_id: asker.keyId,
          balance: asker.balance,
          id,
          ...tokenOf(asker),
        }),
      ),
    ),
  },
  {
    route: publicRoute("pauseExport"),
    ask: aboutJob(async (ctx, id, _request, { keyId }) =>
      answerOf(await ctx.exports.call("pause", { key_id: keyId, id })),
    ),
  },
  {
    route: publicRoute("resumeExport"),
    // Only resume reads a body: `max_credits`, a higher ceiling (docs/api.md#exports).
    ask: async (ctx, request, asker) => {
      const resumed = resumeBody(request.body);
      if ("code" in resumed) return { failure: resumed };
      return aboutJob(async (_ctx, id) =>
        answerOf(
          await ctx.exports.call("resume", {
            key_id: asker.keyId,
            balance: asker.balance,
            id,
            ...resumed,
            ...tokenOf(asker),
          }),
        ),
      )(ctx, request, asker);
    },
  },
  {
    route: publicRoute("cancelExport"),
    ask: aboutJob(async (ctx, id, _request, { keyId }) =>
      answerOf(await ctx.exports.call("cancel", { key_id: keyId, id })),
    ),
  },
];
const DOWNLOAD = publicRoute("downloadExport");
const LIST = publicRoute("listExports");

export async function registerExportRoutes(
  app: FastifyInstance,
  gateway: GatewayContext,
  subjects: Subjects,
  { timeoutMs = COMMAND_TIMEOUT_MS }: { readonly timeoutMs?: number | undefined } = {},
) {
  const exports = rpcCaller(gateway.nats, EXPORTS_RPC, subjects.exports.commands, timeoutMs);
  const ctx: ExportsContext = { ...gateway, exports };
  acceptJsonObjectBodies(app, ctx, EXPORT_BODY_LIMIT_BYTES);
  for (const served of SERVED)
    app.route({
      method: served.route.method,
      url: fastifyPath(served.route.path),
      config: portalConfig(served.route.operationId),
      handler: (request, reply) => answerJob(ctx, served, request, reply),
    });
  app.route({
    method: DOWNLOAD.method,
    url: fastifyPath(DOWNLOAD.path),
    config: portalConfig(DOWNLOAD.operationId),
    handler: (request, reply) => download(ctx, request, reply),
  });
  app.route({
    method: LIST.method,
    url: fastifyPath(LIST.path),
    config: portalConfig(LIST.operationId),
    handler: (request, reply) => list(ctx, request, reply),
  });
}

/** The key's most recent exports: the exports service lists only the asking key's own. */
async function list(ctx: ExportsContext, request: FastifyRequest, reply: FastifyReply) {
  const taken = await takeIn(ctx, { route: LIST, operation: "exports" }, request, reply);
  if ("sent" in taken) return taken.sent;
  const answer = await ctx.exports.call("list", { key_id: taken.managed.key.id });
  const outcome = answer.ok
    ? { value: answer.value, status: 200 }
    : { failure: serviceUnavailable(`exports: ${answer.error.message}`) };
  return answerManaged(ctx, request, reply, taken.managed, outcome);
}

async function answerJob(ctx: ExportsContext, served: Served, request: FastifyRequest, reply: FastifyReply) {
  // A required body that is not a JSON object is refused before the key is looked at.
  const body = served.route.body?.required ? jsonObjectBody(request.body) : undefined;
  if (body !== undefined && !body.ok) return sendError(reply, body.error, ctx.errors);
  const forwarded = await forward(ctx, served.route, request, reply, (asker) =>
    served.ask(ctx, request, asker),
  );
  if ("sent" in forwarded) return forwarded.sent;
  const { managed, answered } = forwarded;
  const status = served.status ?? (() => 200);
  const outcome =
    "failure" in answered ? answered : { value: answered.reply.job, status: status(answered.reply.job) };
  return answerManaged(ctx, request, reply, managed, outcome);
}

/** Takes the request in, asks the exports service, and hands on its refusal or its answer. */
async function forward<Reply>(
  ctx: ExportsContext,
  route: PublicRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  ask: (asker: Asker) => Promise<Answered<Reply>>,
): Promise<{ sent: FastifyReply } | { managed: Managed; answered: Answered<Reply> }> {
  const taken = await takeIn(ctx, { route, operation: "exports" }, request, reply);
  if ("sent" in taken) return taken;
  const { key, admitted, requestToken } = taken.managed;
  const asker = { keyId: key.id, balance: admitted.balance, requestToken };
  return { managed: taken.managed, answered: await ask(asker) };
}

/** The exports service's reply: its `ok` answer, its refusal (with its code), or no answer in time. */
function answerOf<Reply extends { outcome: "ok" }>(
  answer: Result<Reply | ExportRefusal, NatsRequestFailure>,
): Answered<Reply> {
  if (!answer.ok) return { failure: serviceUnavailable(`exports: ${answer.error.message}`) };
  const value = answer.value;
  if (value.outcome === "refused")
    return {
      failure: refusedBy(value.code, value.message, { retryAfterSeconds: value.retry_after_seconds }),
    };
  return { reply: value };
}

/** The file of the key's own finished job, fetched through the exports service's signed link. */
async function download(ctx: ExportsContext, request: FastifyRequest, reply: FastifyReply) {
  const ask = aboutJob(async (_ctx, id, _request, { keyId }) =>
    answerOf(await ctx.exports.call("file", { key_id: keyId, id })),
  );
  const forwarded = await forward(ctx, DOWNLOAD, request, reply, (asker) => ask(ctx, request, asker));
  if ("sent" in forwarded) return forwarded.sent;
  const { answered } = forwarded;
  if ("failure" in answered) return sendError(reply, answered.failure, ctx.errors);
  const answer = answered.reply;
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
