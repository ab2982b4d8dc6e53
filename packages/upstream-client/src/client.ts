/**
 * The undici client of the upstream API: one keep-alive pool per upstream origin, a deadline per call
 * that covers every retry and wait, classified outcomes, and coalescing of identical concurrent calls.
 */
import { Pool } from "undici";
import { sleep } from "./backoff.ts";
import { type AttemptVerdict, classifyAnswer } from "./classify.ts";
import { createCoalescer } from "./coalesce.ts";
import { BodyTooLargeError, readBoundedText } from "./read-body.ts";
import { buildRequestPath, parseBaseUrl } from "./request-path.ts";
import { type CallState, decide } from "./retry-policy.ts";
import { type ClientSettings, resolveSettings } from "./settings.ts";
import type { UpstreamClient, UpstreamClientOptions, UpstreamQuery, UpstreamResult } from "./types.ts";

interface Transport {
  readonly pool: Pool;
  readonly prefix: string;
  readonly settings: ClientSettings;
  readonly options: UpstreamClientOptions;
  sent: number;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const settings = resolveSettings(options);
  const { origin, prefix } = parseBaseUrl(options.baseUrl);
  const pool = new Pool(origin, { connections: settings.connections, keepAliveTimeout: 30_000 });
  const transport: Transport = { pool, prefix, settings, options, sent: 0 };
  const coalescer = createCoalescer<UpstreamResult>();
  let coalesced = 0;
  return {
    get(path, query) {
      const tagged = options.appName ? { ...query, "meta-app": options.appName } : query;
      const key = buildRequestPath(prefix, path, tagged);
      const { promise, joined } = coalescer.run(key, () => callWithRetries(transport, path, tagged));
      if (joined) coalesced += 1;
      return promise;
    },
    stats: () => ({ requests: transport.sent, coalesced }),
    close: () => pool.close(),
  };
}

async function callWithRetries(transport: Transport, path: string, query: UpstreamQuery) {
  const deadline = Date.now() + transport.settings.deadlineMs;
  let state = { attempts: 0, query, busyRetried: false, remainingMs: transport.settings.deadlineMs };
  for (;;) {
    const timeoutMs = Math.min(transport.settings.attemptTimeoutMs, state.remainingMs);
    const verdict = await attempt(
      transport,
      buildRequestPath(transport.prefix, path, state.query),
      timeoutMs,
    );
    state = { ...state, attempts: state.attempts + 1, remainingMs: deadline - Date.now() };
    const decision = decide(verdict, state, transport.settings);
    if ("stop" in decision) return logOutcome(transport, path, decision.stop);
    if (decision.waitMs >= state.remainingMs) return logOutcome(transport, path, outOfTime(verdict, state));
    transport.options.logger?.debug({ path, reason: describe(verdict), waitMs: decision.waitMs }, "retrying");
    await sleep(decision.waitMs);
    state = { ...state, query: decision.query, busyRetried: decision.busyRetried };
    state = { ...state, remainingMs: deadline - Date.now() };
  }
}

/** When the next wait would pass the deadline, the call ends as its last failure classifies. */
function outOfTime(verdict: AttemptVerdict, state: CallState): UpstreamResult {
  const counts = { attempts: state.attempts, retries: Math.max(0, state.attempts - 1) };
  if (verdict.kind === "rate_limited") {
    const retryAfter = Math.max(1, Math.ceil(verdict.resetSeconds ?? 60));
    return {
      outcome: "rate_limited",
      message: "upstream rate limit reached",
      retry_after_seconds: retryAfter,
      ...counts,
    };
  }
  return {
    outcome: "unavailable",
    message: `upstream: ${describe(verdict)} (no time left to retry)`,
    ...counts,
  };
}

async function attempt(transport: Transport, path: string, timeoutMs: number): Promise<AttemptVerdict> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  transport.sent += 1;
  try {
    const response = await transport.pool.request({
      path,
      method: "GET",
      signal: controller.signal,
      headers: { accept: "application/json" },
    });
    const { maxBodyBytes } = transport.settings;
    const text = await readBoundedText(response.body, response.headers["content-length"], maxBodyBytes);
    return classifyAnswer(response.statusCode, response.headers["x-ratelimit-reset"], text);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { kind: "unavailable", reason: error.message };
    if (controller.signal.aborted) return { kind: "transient", reason: `no answer within ${timeoutMs} ms` };
    return { kind: "transient", reason: `request failed: ${errorCode(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

function logOutcome(transport: Transport, path: string, result: UpstreamResult): UpstreamResult {
  if (result.outcome !== "ok" || result.retries > 0) {
    const { outcome, attempts } = result;
    const message = "message" in result ? result.message : undefined;
    transport.options.logger?.warn(
      { path, outcome, attempts, message },
      "upstream call needed retries or failed",
    );
  }
  return result;
}

function describe(verdict: AttemptVerdict): string {
  if (verdict.kind === "ok") return "ok";
  if (verdict.kind === "rate_limited") return "HTTP 429";
  return verdict.reason;
}

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error) return String(error.code);
  return error instanceof Error ? error.message : String(error);
}
