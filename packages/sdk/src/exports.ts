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

export interface ExportsClient {
  createExport(request: ExportRequest): Promise<GatewayResult<ExportJob>>;
  getExport(id: string): Promise<GatewayResult<ExportJob>>;
  startExport(id: string): Promise<GatewayResult<ExportJob>>;
  pauseExport(id: string): Promise<GatewayResult<ExportJob>>;
  resumeExport(id: string): Promise<GatewayResult<ExportJob>>;
  cancelExport(id: string): Promise<GatewayResult<ExportJob>>;
  /** Polls until the export is done, failed or cancelled (or only quoted); the last state is the value. */
  waitForExport(id: string, options?: WaitOptions): Promise<GatewayResult<ExportJob>>;
  /** The finished export's file, as bytes. */
  downloadExport(id: string): Promise<GatewayResult<Uint8Array>>;
}

const ENDED = new Set(["done", "failed", "cancelled", "quoted"]);

export function createExportsClient(options: {
  prefix: string;
  apiKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
}): ExportsClient {
  const send = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      const response = await options.fetch(`${options.prefix}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
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
    body?: unknown,
  ): Promise<GatewayResult<ExportJob>> => {
    const sent = await send(method, path, body);
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
    createExport: (request) => job("POST", "/v1/exports", request),
    getExport: (id) => job("GET", path(id)),
    startExport: (id) => job("POST", path(id, "/start")),
    pauseExport: (id) => job("POST", path(id, "/pause")),
    resumeExport: (id) => job("POST", path(id, "/resume")),
    cancelExport: (id) => job("POST", path(id, "/cancel")),
    async waitForExport(id, wait = {}) {
      let seen = "";
      for (;;) {
        const current = await client.getExport(id);
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
    async downloadExport(id) {
      const sent = await send("GET", path(id, "/file"));
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

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
