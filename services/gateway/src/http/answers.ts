/**
 * What every answer of the gateway carries, in one place: the headers on every response and the
 * request id each one echoes (below), the 200 envelope `{data, _service}` with its credit headers,
 * and the key's bucket as rate-limit headers.
 *
 * The headers every response carries, whatever answered it (a data route, an error, a 404, the
 * OpenAPI document, the docs page, the /mcp proxy):
 * - `Cache-Control: no-store`: a paid response belongs to one key; a shared cache keyed by URL alone
 *   must never hand it to another caller, and nothing here is worth caching by URL anyway.
 * - `X-Content-Type-Options: nosniff`: browsers take the declared type (JSON stays JSON).
 * - `Vary: Authorization, x-api-key`: the answer depends on the key, whichever header carries it.
 * - `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`: no page of ours is framed by another
 *   site, and no URL of ours (which may carry query parameters) is passed on as a Referer.
 * - On the docs pages, a Content-Security-Policy: everything from this gateway only, never framed.
 *   Scalar's page starts itself with an inline script and styles itself inline, so those are allowed;
 *   nothing else is (routes/docs.ts).
 */

import { randomUUID } from "node:crypto";
import {
  type CreditServiceMeta,
  type KeyBucket,
  type ListServiceMeta,
  requestIdSchema,
} from "@rda/contracts";
import type { FastifyInstance, FastifyReply } from "fastify";

export const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  vary: "Authorization, x-api-key",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
} as const;

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

export function installResponseHeaders(app: FastifyInstance, docsPrefix: string): void {
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("cache-control", SECURITY_HEADERS["cache-control"]);
    reply.header("x-content-type-options", SECURITY_HEADERS["x-content-type-options"]);
    reply.header("vary", mergeVary(reply.getHeader("vary")));
    reply.header("x-frame-options", SECURITY_HEADERS["x-frame-options"]);
    reply.header("referrer-policy", SECURITY_HEADERS["referrer-policy"]);
    const path = request.url.split("?")[0] ?? "";
    if (path === docsPrefix || path.startsWith(`${docsPrefix}/`)) {
      reply.header("content-security-policy", DOCS_CONTENT_SECURITY_POLICY);
    }
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

/**
 * Request ids. The id used for billing and logs is always generated here (unique, so a caller can
 * never replay or collide with a ledger entry); a caller's `x-request-id` is only echoed and logged,
 * and only when it is safe to put in a header and a log line (distrust the wire).
 */
export function generateRequestId(): string {
  return randomUUID();
}

/** The caller's id when well formed, else ours. */
export function correlationId(header: string | string[] | undefined, generated: string): string {
  if (typeof header !== "string") return generated;
  return requestIdSchema.safeParse(header).success ? header : generated;
}

/**
 * The 200 envelope `{data, _service}` (docs/api.md#response-envelope). The adapter's data bytes are
 * spliced in as they came (never parsed or re-serialised on the hot path); only `_service` is
 * serialised. The credit headers equal the body's values. Below, the key's bucket as rate-limit headers,
 * which every authenticated answer under /v1 carries.
 */
const DATA_OPEN = Buffer.from('{"data":');
const SERVICE_OPEN = Buffer.from(',"_service":');
const CLOSE = Buffer.from("}");

export type ServiceMeta = ListServiceMeta | CreditServiceMeta;

export function envelope(data: Uint8Array, service: ServiceMeta): Buffer {
  return Buffer.concat([DATA_OPEN, data, SERVICE_OPEN, Buffer.from(JSON.stringify(service)), CLOSE]);
}

/** Sends an envelope, or a stored one again (a replayed idempotent request). */
export function sendEnvelope(
  reply: FastifyReply,
  body: Buffer,
  credits: { readonly credits_used: number; readonly credits_remaining: number },
): FastifyReply {
  return reply
    .code(200)
    .type("application/json; charset=utf-8")
    .header("x-credits-used", String(credits.credits_used))
    .header("x-credits-remaining", String(credits.credits_remaining))
    .send(body);
}

/**
 * The key's own bucket as `RateLimit-Policy` and `RateLimit` (the IETF httpapi RateLimit header
 * fields draft, structured-field lists): the policy's quota `q` is the burst, refilled over window
 * `w` seconds at the key's rate; `r` is what is left now and `t` the seconds until the bucket is
 * full again. Sent on every authenticated answer under /v1 (docs/api.md#rate-limits).
 */
const POLICY = '"per-key"';

export function setRateLimitHeaders(reply: FastifyReply, bucket: KeyBucket): void {
  const window = Math.max(1, Math.ceil(bucket.burst / bucket.qps));
  reply.header("ratelimit-policy", `${POLICY};q=${bucket.burst};w=${window}`);
  reply.header("ratelimit", `${POLICY};r=${bucket.remaining};t=${bucket.reset_seconds}`);
}
