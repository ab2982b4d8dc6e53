/**
 * The typed client of the public HTTP API: one undici Pool per client (keep-alive sockets shared by
 * every call and every caller's key), one method per operation, results as values.
 */
import { OPERATIONS, type OperationName } from "@rda/contracts";
import { Pool } from "undici";
import { envelopeSchemaOf } from "./envelope.ts";
import { type GatewayError, headerValue, httpError, transportError } from "./errors.ts";
import { buildRequestPath } from "./request-path.ts";
import type { CallOptions, Envelope, GatewayClientOptions, GatewayResult, OperationInput } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_CONNECTIONS = 64;

type Call<N extends OperationName> = (
  params: OperationInput<N>,
  options?: CallOptions,
) => Promise<GatewayResult<Envelope<N>>>;

export interface GatewayClient {
  listPosts: Call<"listPosts">;
  listComments: Call<"listComments">;
  getCommentTree: Call<"getCommentTree">;
  searchSubreddits: Call<"searchSubreddits">;
  getSubredditRules: Call<"getSubredditRules">;
  getUserProfile: Call<"getUserProfile">;
  getAccount(options?: CallOptions): Promise<GatewayResult<Envelope<"getAccount">>>;
  /** Any operation by its operationId; what the methods above call. */
  call<N extends OperationName>(
    operation: N,
    params: OperationInput<N>,
    options?: CallOptions,
  ): Promise<GatewayResult<Envelope<N>>>;
  /** Closes the pool's sockets once in-flight calls finish. */
  close(): Promise<void>;
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const pool = new Pool(base.origin, { connections: options.connections ?? DEFAULT_CONNECTIONS });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const call = async <N extends OperationName>(
    operation: N,
    params: OperationInput<N>,
    callOptions: CallOptions = {},
  ): Promise<GatewayResult<Envelope<N>>> => {
    const path = buildRequestPath(prefix, OPERATIONS[operation], params as Record<string, unknown>);
    const apiKey = callOptions.apiKey ?? options.apiKey;
    const headers: Record<string, string> = { accept: "application/json" };
    if (apiKey !== undefined) headers["x-api-key"] = apiKey;
    if (callOptions.requestId !== undefined) headers["x-request-id"] = callOptions.requestId;
    const sent = await send(pool, path, headers, timeoutMs, callOptions.signal);
    if (!sent.ok) return sent;
    return interpret(operation, sent.status, sent.headers, sent.text);
  };

  return {
    listPosts: (params, opts) => call("listPosts", params, opts),
    listComments: (params, opts) => call("listComments", params, opts),
    getCommentTree: (params, opts) => call("getCommentTree", params, opts),
    searchSubreddits: (params, opts) => call("searchSubreddits", params, opts),
    getSubredditRules: (params, opts) => call("getSubredditRules", params, opts),
    getUserProfile: (params, opts) => call("getUserProfile", params, opts),
    getAccount: (opts) => call("getAccount", {}, opts),
    call,
    close: () => pool.close(),
  };
}

type Headers = Record<string, string | string[] | undefined>;
type Sent = { ok: true; status: number; headers: Headers; text: string } | { ok: false; error: GatewayError };

async function send(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<Sent> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  try {
    const response = await pool.request({ method: "GET", path, headers, signal });
    const text = await response.body.text();
    return { ok: true, status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    if (callerSignal?.aborted) return { ok: false, error: transportError("aborted", "the call was aborted") };
    if (deadline.aborted) {
      return { ok: false, error: transportError("timeout", `no complete answer within ${timeoutMs} ms`) };
    }
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: transportError("network", `cannot reach the API: ${reason}`) };
  }
}

function interpret<N extends OperationName>(
  operation: N,
  status: number,
  headers: Headers,
  text: string,
): GatewayResult<Envelope<N>> {
  const body = parseJson(text);
  if (status !== 200) return { ok: false, error: httpError(status, errorMessage(status, body), headers) };
  // Validated against the contract, but the body is returned as sent: upstream fields pass through.
  if (!envelopeSchemaOf(operation).safeParse(body).success) {
    return {
      ok: false,
      error: {
        ...httpError(status, "the API answered 200 with a body that is not the documented envelope", headers),
        kind: "invalid_response",
      },
    };
  }
  return { ok: true, value: body as Envelope<N>, requestId: headerValue(headers, "x-request-id") ?? null };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The spec's error body is `{error}`; anything else (a proxy's HTML page) gets a generic text. */
function errorMessage(status: number, body: unknown): string {
  if (typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string") {
    return (body as { error: string }).error;
  }
  return `the API answered HTTP ${status}`;
}
