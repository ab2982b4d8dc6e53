/**
 * The typed client of the public HTTP API: one method per operation, results as values, `for await`
 * paging over posts and comments, and optional retries that are safe to take (see retry.ts). It uses
 * the runtime's fetch, so it runs in Node 20+, Deno, Bun, browsers and edge runtimes alike.
 */

import { isEnvelope } from "./envelope.ts";
import { httpError } from "./errors.ts";
import { createExportsClient, type ExportsClient } from "./exports.ts";
import { OPERATIONS } from "./generated/operations.ts";
import { createMonitorsClient, type MonitorsClient } from "./monitors.ts";
import { itemsOf, pagesOf, rankedPagesOf } from "./pagination.ts";
import { buildRequestPath } from "./request-path.ts";
import { idempotencyKeyFor, retryPolicy, withRetries } from "./retry.ts";
import { type Answer, attempt, callHeaders, textOf } from "./transport.ts";
import type {
  CallOptions,
  Comment,
  Envelope,
  GatewayClientOptions,
  GatewayResult,
  OperationInput,
  OperationName,
  PageOptions,
  Post,
  UserProfile,
} from "./types.ts";

/**
 * Longer than the gateway's own wait for a heavy upstream query (35 s, docs/operations.md#timeouts),
 * so the server, not the client, decides when a slow request has failed (and refunds it).
 */
const DEFAULT_TIMEOUT_MS = 45_000;

type Call<N extends OperationName> = (
  params: OperationInput<N>,
  options?: CallOptions,
) => Promise<GatewayResult<Envelope<N>>>;

/**
 * Export jobs are in exports.ts (createExport, getExport, waitForExport, downloadExport…), monitors
 * in monitors.ts (createMonitor, listMonitors, pullMonitorItems…).
 */
export interface GatewayClient extends ExportsClient, MonitorsClient {
  listPosts: Call<"listPosts">;
  listComments: Call<"listComments">;
  getCommentTree: Call<"getCommentTree">;
  searchSubreddits: Call<"searchSubreddits">;
  getSubredditRules: Call<"getSubredditRules">;
  getUserProfile: Call<"getUserProfile">;
  searchUsers: Call<"searchUsers">;
  getActivity: Call<"getActivity">;
  getAccount(options?: CallOptions): Promise<GatewayResult<Envelope<"getAccount">>>;
  /** Any operation by its operationId; what the methods above call. */
  call<N extends OperationName>(
    operation: N,
    params: OperationInput<N>,
    options?: CallOptions,
  ): Promise<GatewayResult<Envelope<N>>>;
  /** Every page of a post listing, following the cursor; 1 credit per page. Throws `GatewayApiError`. */
  postPages(
    params: OperationInput<"listPosts">,
    options?: PageOptions,
  ): AsyncGenerator<Envelope<"listPosts">>;
  /** Every page of a comment listing, following the cursor; 1 credit per page. */
  commentPages(
    params: OperationInput<"listComments">,
    options?: PageOptions,
  ): AsyncGenerator<Envelope<"listComments">>;
  /** The posts of every page, one at a time. */
  posts(params: OperationInput<"listPosts">, options?: PageOptions): AsyncGenerator<Post>;
  /** The comments of every page, one at a time. */
  comments(params: OperationInput<"listComments">, options?: PageOptions): AsyncGenerator<Comment>;
  /** Every page of a user search, following the rank cursor (`offset`); 1 credit per page. */
  userPages(
    params: OperationInput<"searchUsers">,
    options?: PageOptions,
  ): AsyncGenerator<Envelope<"searchUsers">>;
  /** The users of every page of a user search, one at a time. */
  users(params: OperationInput<"searchUsers">, options?: PageOptions): AsyncGenerator<UserProfile>;
  /** Nothing to release with fetch; kept so callers can close any client the same way. */
  close(): Promise<void>;
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const base = new URL(options.baseUrl);
  const prefix = `${base.origin}${base.pathname.replace(/\/+$/, "")}`;
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const call = async <N extends OperationName>(
    operation: N,
    params: OperationInput<N>,
    callOptions: CallOptions = {},
  ): Promise<GatewayResult<Envelope<N>>> => {
    const route = OPERATIONS[operation];
    const url = buildRequestPath(prefix, route, params);
    const policy = retryPolicy(options.retry, callOptions.retry);
    const headers = callHeaders(callOptions, options.apiKey);
    const idempotencyKey = idempotencyKeyFor(route, callOptions.idempotencyKey, policy);
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    return withRetries(route, policy, callOptions.signal, async () => {
      const outgoing = { method: route.method, url, headers };
      const sent = await attempt(fetchFn, outgoing, timeoutMs, callOptions.signal);
      return sent.ok ? interpret<N>(route.meta, sent.value) : sent;
    });
  };

  const postPages = (params: OperationInput<"listPosts">, opts?: PageOptions) =>
    pagesOf(call, "listPosts", params, opts);
  const commentPages = (params: OperationInput<"listComments">, opts?: PageOptions) =>
    pagesOf(call, "listComments", params, opts);
  const userPages = (params: OperationInput<"searchUsers">, opts?: PageOptions) =>
    rankedPagesOf(call, params, opts);
  const resources = { prefix, apiKey: options.apiKey, fetch: fetchFn, timeoutMs, retry: options.retry };
  return {
    ...createExportsClient(resources),
    ...createMonitorsClient(resources),
    listPosts: (params, opts) => call("listPosts", params, opts),
    listComments: (params, opts) => call("listComments", params, opts),
    getCommentTree: (params, opts) => call("getCommentTree", params, opts),
    searchSubreddits: (params, opts) => call("searchSubreddits", params, opts),
    getSubredditRules: (params, opts) => call("getSubredditRules", params, opts),
    getUserProfile: (params, opts) => call("getUserProfile", params, opts),
    searchUsers: (params, opts) => call("searchUsers", params, opts),
    getActivity: (params, opts) => call("getActivity", params, opts),
    getAccount: (opts) => call("getAccount", {}, opts),
    call,
    postPages,
    commentPages,
    posts: (params, opts) => itemsOf(postPages(params, opts)),
    comments: (params, opts) => itemsOf(commentPages(params, opts)),
    userPages,
    users: (params, opts) => itemsOf(userPages(params, opts)),
    close: async () => undefined,
  };
}

function interpret<N extends OperationName>(
  meta: "list" | "credits",
  answer: Answer,
): GatewayResult<Envelope<N>> {
  const body = parseJson(textOf(answer));
  const { status, headers } = answer;
  if (status !== 200) {
    return { ok: false, error: httpError(status, errorMessage(status, body), headers, errorFields(body)) };
  }
  if (!isEnvelope(meta, body)) {
    const error = httpError(
      status,
      "the API answered 200 with a body that is not the documented envelope",
      headers,
    );
    return { ok: false, error: { ...error, kind: "invalid_response" } };
  }
  return { ok: true, value: body as Envelope<N>, requestId: headers.get("x-request-id") };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorFields(body: unknown): { code?: unknown; param?: unknown } | undefined {
  return typeof body === "object" && body !== null
    ? (body as { code?: unknown; param?: unknown })
    : undefined;
}

/** The API's error body is `{error, code}`; anything else (a proxy's HTML page) gets a generic text. */
function errorMessage(status: number, body: unknown): string {
  if (typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string") {
    return (body as { error: string }).error;
  }
  return `the API answered HTTP ${status}`;
}
