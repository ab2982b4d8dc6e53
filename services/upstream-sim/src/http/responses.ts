import type { FastifyReply } from "fastify";

const WINDOW_MS = 60_000;

/** `{"data": null, "error": ...}`: the upstream's error body (docs/upstream.md#response-shapes). */
export function errorBody(message: string): string {
  return JSON.stringify({ data: null, error: message });
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json").send(errorBody(message));
}

/** `{"data": [...]}` from items that are already JSON text (cached items stay strings). */
export function sendJsonItems(reply: FastifyReply, items: readonly string[]): FastifyReply {
  return reply.type("application/json").send(`{"data":[${items.join(",")}]}`);
}

export function sendData(reply: FastifyReply, data: unknown): FastifyReply {
  return reply.type("application/json").send(JSON.stringify({ data }));
}

/**
 * The headers observed upstream (docs/upstream.md#rate-limits): seconds left in the 60 s
 * window, and the epoch milliseconds of the window's end, on a minute boundary.
 */
export function rateLimitHeaders(nowMs: number): Record<string, string> {
  const resetAt = (Math.floor(nowMs / WINDOW_MS) + 1) * WINDOW_MS;
  return {
    "x-ratelimit-reset": String(Math.ceil((resetAt - nowMs) / 1000)),
    "x-ratelimit-reset-at": String(resetAt),
  };
}
