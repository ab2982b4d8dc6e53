/**
 * Redis connections. Commands fail fast while disconnected (no offline queue), so a caller can answer
 * 503 at once instead of hanging; the client keeps reconnecting in the background.
 */
import { Redis } from "ioredis";
import type { Logger } from "./logger.ts";

export type { Redis };

export function connectRedis(url: string, name: string, logger: Logger): Redis {
  const client = new Redis(url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  client.on("error", (error) => logger.warn({ err: error.message }, "Redis connection problem"));
  client.on("ready", () => logger.info("connected to Redis"));
  return client;
}

/** Connects and waits until Redis answers, or throws after `timeoutMs`. */
export async function openRedis(
  url: string,
  name: string,
  logger: Logger,
  timeoutMs = 10_000,
): Promise<Redis> {
  const client = connectRedis(url, name, logger);
  const timer = setTimeout(() => client.disconnect(), timeoutMs);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    throw new Error(`cannot reach Redis at ${redactUrl(url)}: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

export function isRedisReady(client: Redis): boolean {
  return client.status === "ready";
}

/** Drops any password from a Redis or NATS URL before it is logged. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<invalid url>";
  }
}
