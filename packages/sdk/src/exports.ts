/**
 * Export jobs (docs/api.md#exports): quote and start an export, follow it, and download its file.
 * `waitForExport` polls until the export ends and reports each change of progress, so a script can
 * show a progress bar. Every call here is free; the export's pages are charged as they arrive.
 */
import { httpError, transportError } from "./errors.ts";
import type { components } from "./generated/openapi.ts";
import { sleep } from "./retry.ts";
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

/** Per call: another key than the client's, the request id to log, a signal to stop waiting. */
export interface ExportCallOptions {
  apiKey?: string;
  requestId?: string;
  signal?: AbortSignal;
}

export interface ExportsClient {
  createExport(request: ExportRequest, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  getExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  startExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  pauseExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  resumeExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  cancelExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  /** Polls until the export is done, failed or cancelled (or only quoted); the last state is the value. */
  waitForExport(id: string, options?: WaitOptions & ExportCallOptions): Promise<GatewayResult<ExportJob>>;
  /** The finished export's file, as bytes. */
  downloadExport(id: string, options?: ExportCallOptions): Promise<GatewayResult<Uint8Array>>;
}

const ENDED = new Set(["done", "failed", "cancelled", "quoted"]);

export function createExportsClient(options: {
  prefix: string;
  apiKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
}): ExportsClient {
  const send = async (method: "GET" | "POST", path: string, body: unknown, call: ExportCallOptions = {}) => {
    const headers: Record<string, string> = { accept: "application/json" };
    const apiKey = call.apiKey ?? options.apiKey;
    if (apiKey !== undefined) headers["x-api-key"] = apiKey;
    if (call.requestId !== undefined) headers["x-request-id"] = call.requestId;
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await options.fetch(`${options.prefix}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: call.signal ? anySignal(call.signal, timeout) : timeout,
      });
      return { ok: true as const, response };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false as const, error: transportError("network", `cannot reach the API: ${reason}`) };
    }
  };
  const job = async (
    method: "GET" | "POST",
    path: string,
    body: unknown,
    call?: ExportCallOptions,
  ): Promise<GatewayResult<ExportJob>> => {
    const sent = await send(method, path, body, call);
    if (!sent.ok) return sent;
    const { response } = sent;
    const text = await response.text();
    const parsed = parse(text);
    if (response.status >= 300) {
      const message =
        typeof parsed?.error === "string" ? parsed.error : `the API answered HTTP ${response.status}`;
      return { ok: false, error: httpError(response.status, message, response.headers) };
    }
    return { ok: true, value: parsed?.data as ExportJob, requestId: response.headers.get("x-request-id") };
  };
  const path = (id: string, action = "") => `/v1/exports/${encodeURIComponent(id)}${action}`;
  const client: ExportsClient = {
    createExport: (request, call) => job("POST", "/v1/exports", request, call),
    getExport: (id, call) => job("GET", path(id), undefined, call),
    startExport: (id, call) => job("POST", path(id, "/start"), undefined, call),
    pauseExport: (id, call) => job("POST", path(id, "/pause"), undefined, call),
    resumeExport: (id, call) => job("POST", path(id, "/resume"), undefined, call),
    cancelExport: (id, call) => job("POST", path(id, "/cancel"), undefined, call),
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
    async downloadExport(id, call) {
      const sent = await send("GET", path(id, "/file"), undefined, call);
      if (!sent.ok) return sent;
      const { response } = sent;
      if (response.status !== 200) {
        const parsed = parse(await response.text());
        const message =
          typeof parsed?.error === "string" ? parsed.error : `the API answered HTTP ${response.status}`;
        return { ok: false, error: httpError(response.status, message, response.headers) };
      }
      return {
        ok: true,
        value: new Uint8Array(await response.arrayBuffer()),
        requestId: response.headers.get("x-request-id"),
      };
    },
  };
  return client;
}

/** Either signal aborts; AbortSignal.any is not in every runtime the SDK supports. */
function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener("abort", abort, { once: true });
  b.addEventListener("abort", abort, { once: true });
  return controller.signal;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
