/**
 * Export jobs (docs/api.md#exports): quote and start an export, follow it, and download its file.
 * `waitForExport` polls until the export ends and reports each change of progress, so a script can
 * show a progress bar. Every call here is free; the export's pages are charged as they arrive.
 */
import { transportError } from "./errors.ts";
import type { components } from "./generated/openapi.ts";
import {
  type CallOptionsOf,
  createResourceCaller,
  errorOf,
  type IdempotentCallOptions,
  type ManagementRouteName,
  parse,
  type ResourceCallOptions,
  type ResourceClientOptions,
} from "./json-call.ts";
import { sleep } from "./retry.ts";
import { textOf } from "./transport.ts";
import type { GatewayResult } from "./types.ts";

type Schemas = components["schemas"];
export type ExportJob = Schemas["ExportJob"];
export type ExportQuote = Schemas["ExportQuote"];
export type ExportManifest = Schemas["ExportManifest"];

/** The body of `POST /v1/exports`. */
export interface ExportRequest {
  kind: "posts" | "comments";
  subreddit?: string;
  author?: string;
  after: number | string;
  before: number | string;
  q?: string;
  fields?: string;
  format?: "jsonl" | "csv" | "parquet";
  gzip?: boolean;
  max_credits?: number;
  /** Start at once; without it the answer is a quote only. */
  confirm?: boolean;
}

export interface WaitOptions {
  /** Called with the export each time its state or pages change. */
  onProgress?: (job: ExportJob) => void;
  /** Between two looks; default 2,000 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Per call: another key than the client's, the request id to log, a signal to stop waiting, the
 * retry policy.
 */
export type ExportCallOptions = ResourceCallOptions;

/**
 * Each method's options are its route's (`CallOptionsOf`): creating, starting and resuming an
 * export take `idempotencyKey` too, and are retried under it (see the README, "Retries").
 */
export interface ExportsClient {
  createExport(
    request: ExportRequest,
    options?: CallOptionsOf<"createExport">,
  ): Promise<GatewayResult<ExportJob>>;
  /** The key's most recent exports, newest first. Free. */
  listExports(options?: CallOptionsOf<"listExports">): Promise<GatewayResult<{ jobs: ExportJob[] }>>;
  getExport(id: string, options?: CallOptionsOf<"getExport">): Promise<GatewayResult<ExportJob>>;
  startExport(id: string, options?: CallOptionsOf<"startExport">): Promise<GatewayResult<ExportJob>>;
  pauseExport(id: string, options?: CallOptionsOf<"pauseExport">): Promise<GatewayResult<ExportJob>>;
  /**
   * Resumes a paused export, or, with `max_credits` above the credits spent, one stopped at its
   * credit ceiling (it goes on from the last page written).
   */
  resumeExport(
    id: string,
    options?: CallOptionsOf<"resumeExport"> & { max_credits?: number },
  ): Promise<GatewayResult<ExportJob>>;
  cancelExport(id: string, options?: CallOptionsOf<"cancelExport">): Promise<GatewayResult<ExportJob>>;
  /** Polls until the export is done, failed or cancelled (or only quoted); the last state is the value. */
  waitForExport(id: string, options?: WaitOptions & ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  /** The export's file, as bytes: a finished one's, or the paid rows of one that ended early. */
  downloadExport(id: string, options?: CallOptionsOf<"downloadExport">): Promise<GatewayResult<Uint8Array>>;
}

const ENDED = new Set(["done", "failed", "cancelled", "quoted"]);

export function createExportsClient(options: ResourceClientOptions): ExportsClient {
  const { exchange, request } = createResourceCaller(options);
  const job = async (
    name: ManagementRouteName,
    id: string | undefined,
    body: unknown,
    call?: IdempotentCallOptions,
  ): Promise<GatewayResult<ExportJob>> => {
    const answer = await request<ExportJob>(name, { id }, body, call);
    return answer.ok ? { ...answer, value: answer.value.data } : answer;
  };
  const client: ExportsClient = {
    createExport: (request, call) => job("createExport", undefined, request, call),
    async listExports(call) {
      const answer = await request<{ jobs: ExportJob[] }>("listExports", {}, undefined, call);
      return answer.ok ? { ...answer, value: answer.value.data } : answer;
    },
    getExport: (id, call) => job("getExport", id, undefined, call),
    startExport: (id, call) => job("startExport", id, undefined, call),
    pauseExport: (id, call) => job("pauseExport", id, undefined, call),
    resumeExport: (id, call) =>
      job(
        "resumeExport",
        id,
        call?.max_credits === undefined ? undefined : { max_credits: call.max_credits },
        call,
      ),
    cancelExport: (id, call) => job("cancelExport", id, undefined, call),
    async waitForExport(id, wait = {}) {
      let seen = "";
      for (;;) {
        const current = await client.getExport(id, wait);
        if (!current.ok) return current;
        const { state, progress } = current.value;
        const mark = `${state}:${progress.pages_done}:${progress.percent}`;
        if (mark !== seen) wait.onProgress?.(current.value);
        seen = mark;
        if (ENDED.has(state)) return current;
        if (!(await sleep(wait.intervalMs ?? 2_000, wait.signal))) {
          return { ok: false, error: transportError("aborted", "the wait was aborted") };
        }
      }
    },
    downloadExport: (id, call = {}) =>
      exchange("downloadExport", { id }, undefined, call, (answer) =>
        answer.status === 200
          ? { ok: true, value: answer.bytes, requestId: answer.headers.get("x-request-id") }
          : { ok: false, error: errorOf(answer, parse(textOf(answer))) },
      ),
  };
  return client;
}
