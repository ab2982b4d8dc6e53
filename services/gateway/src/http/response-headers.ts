/**
 * Headers every gateway response carries, whatever answered it (a data route, an error, a 404, the
 * OpenAPI document, the docs page, the /mcp proxy):
 * - `Cache-Control: no-store`: a paid response belongs to one key; a shared cache keyed by URL alone
 *   must never hand it to another caller, and nothing here is worth caching by URL anyway.
 * - `X-Content-Type-Options: nosniff`: browsers take the declared type (JSON stays JSON).
 * - `Vary: Authorization, x-api-key`: the answer depends on the key, whichever header carries it.
 */
import type { FastifyInstance } from "fastify";

export const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  vary: "Authorization, x-api-key",
} as const;

export function installResponseHeaders(app: FastifyInstance): void {
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("cache-control", SECURITY_HEADERS["cache-control"]);
    reply.header("x-content-type-options", SECURITY_HEADERS["x-content-type-options"]);
    reply.header("vary", mergeVary(reply.getHeader("vary")));
    return payload;
  });
}

/** Keeps whatever a route already varies on (the MCP service's Origin, say) and adds the key headers. */
function mergeVary(existing: unknown): string {
  const names = String(existing ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const lower = new Set(names.map((name) => name.toLowerCase()));
  for (const name of SECURITY_HEADERS.vary.split(", ")) if (!lower.has(name.toLowerCase())) names.push(name);
  return names.join(", ");
}
