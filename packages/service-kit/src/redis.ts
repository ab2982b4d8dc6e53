/**
 * Redis connections. Commands fail fast while disconnected (no offline queue) and fail after
 * `commandTimeoutMs` while Redis is connected but stalled (a pause, a slow disk, a long script), so a
 * caller answers 503 within a known time instead of hanging; the client keeps reconnecting in the
 * background. A command that timed out may still run once Redis resumes: callers whose effects must
 * not land late guard against that themselves (billing's admission carries a deadline).
 */
import { DEADLINE_DEFAULTS } from "@rda/contracts";
import { Redis } from "ioredis";
import type { Logger } from "./logger.ts";

export type { Redis };

/** How long a command may take by default (REDIS_COMMAND_TIMEOUT_MS, docs/operations.md#timeouts). */
export const REDIS_COMMAND_TIMEOUT_MS = DEADLINE_DEFAULTS.redisCommandTimeoutMs;

export interface RedisOptions {
  /** A command without an answer by then is rejected; default REDIS_COMMAND_TIMEOUT_MS. */
  readonly commandTimeoutMs?: number;
  /** `openRedis` gives up if Redis does not answer within this; default 10 s. */
  readonly connectTimeoutMs?: number;
}

export function connectRedis(url: string, name: string, logger: Logger, options: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  client.on("error", (error) => logger.warn({ err: error.message }, "Redis connection problem"));
  client.on("ready", () => logger.info("connected to Redis"));
  return client;
}

/** Connects and waits until Redis answers, or throws after `options.connectTimeoutMs`. */
export async function openRedis(
  url: string,
  name: string,
  logger: Logger,
  options: RedisOptions = {},
): Promise<Redis> {
  const client = connectRedis(url, name, logger, options);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const giveUpAt = Date.now() + connectTimeoutMs;
  const timer = setTimeout(() => client.disconnect(), connectTimeoutMs);
  // The connection's own error says why (WRONGPASS, NOAUTH, refused…); the failed call only that it closed.
  let problem: string | undefined;
  const noteProblem = (error: Error) => {
    problem = error.message;
  };
  client.on("error", noteProblem);
  try {
    // A Redis (or a host) busy as we start may let the connection's first commands or a PING outlast
    // the command timeout. The client then reconnects on its own: only the connect bound gives up.
    for (;;) {
      problem = undefined; // each attempt is judged by its own failure
      try {
        if (client.status === "wait") await client.connect();
        else if (!(await readyBefore(client, giveUpAt)))
          throw new Error(problem ?? `not ready within ${connectTimeoutMs} ms`);
        await client.ping();
        return client;
      } catch (error) {
        const slow = isCommandTimeout(error) || problem === COMMAND_TIMED_OUT;
        if (!slow || client.status === "end" || Date.now() >= giveUpAt) throw error;
      }
    }
  } catch (error) {
    client.disconnect();
    const why = problem ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`cannot reach Redis at ${redactUrl(url)}: ${why}`);
  } finally {
    client.off("error", noteProblem);
    clearTimeout(timer);
  }
}

const COMMAND_TIMED_OUT = "Command timed out";
const isCommandTimeout = (error: unknown) => error instanceof Error && error.message === COMMAND_TIMED_OUT;

/** Whether the client, reconnecting on its own, is ready before `giveUpAt` (false once it ended). */
function readyBefore(client: Redis, giveUpAt: number): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (ready: boolean) => {
      clearTimeout(timer);
      client.off("ready", onReady).off("end", onEnd);
      resolve(ready);
    };
    const onReady = () => settle(true);
    const onEnd = () => settle(false);
    const timer = setTimeout(() => settle(false), Math.max(0, giveUpAt - Date.now()));
    client.on("ready", onReady).on("end", onEnd);
  });
}

export function isRedisReady(client: Redis): boolean {
  return client.status === "ready";
}

/**
 * Readiness: connected, and answering a PING within `timeoutMs`. A paused or stalled Redis keeps its
 * connection "ready" while every command waits, so the status alone would say ready.
 */
export async function redisResponds(client: Redis, timeoutMs = 500): Promise<boolean> {
  if (!isRedisReady(client)) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([client.ping().then((answer) => answer === "PONG"), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long a call to the response cache is waited for. A cache only saves work: waiting the full
 * command timeout on a stalled cache, to read before the fetch and again to keep the answer after
 * it, in the gateway and in the adapter, would cost a caller more than the fetch it was meant to save.
 */
export const CACHE_CALL_TIMEOUT_MS = 250;

/**
 * A call to the response cache, or a rejection once `timeoutMs` passed without its answer. The
 * command itself still runs when Redis gets to it, so only calls whose late effect is harmless go
 * through here: reads, and writes of what may be kept (never the claim of a fetch, which others then
 * wait on). When the timer fires the reply may already sit unread on the socket (the process was
 * busy, not Redis): the decision waits one turn of the event loop, so such a reply is read first and
 * a busy process never mistakes itself for a stalled cache.
 */
export function cacheCall<T>(command: Promise<T>, timeoutMs = CACHE_CALL_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) reject(new Error(`the response cache did not answer within ${timeoutMs} ms`));
        }),
      timeoutMs,
    );
    command.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Drops any password from a Redis, NATS or SMTP URL (or a comma-separated list of them) before it is logged. */
export function redactUrl(url: string): string {
  return url
    .split(",")
    .map((one) => {
      try {
        const parsed = new URL(one.trim());
        if (parsed.password) parsed.password = "***";
        return parsed.toString();
      } catch {
        return "<invalid url>";
      }
    })
    .join(",");
}

/**
 * Redis answers that say the store cannot serve now, rather than that the command was wrong: the
 * server is loading, busy with a script, out of memory, read-only or failing over.
 */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|OOM|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;
/** What the client says when no answer came: closed, never connected, or too slow. */
const NO_ANSWER =
  /Connection is closed|Stream isn't writeable|Command timed out|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Reached the max retries/;

/**
 * Whether an error means the Redis store was unreachable or unable to serve (an outage, answered
 * 503), as opposed to a bug in how it was used (a wrong type, a script error: a 500).
 */
export function isStoreFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return UNAVAILABLE_REPLY.test(message) || NO_ANSWER.test(message);
}
