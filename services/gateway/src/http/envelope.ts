/**
 * The 200 envelope `{data, _service}` (docs/api.md#response-envelope). The adapter's data bytes are
 * spliced in as they came (never parsed or re-serialised on the hot path); only `_service` is
 * serialised. The credit headers equal the body's values. Below, the key's bucket as rate-limit headers,
 * which every authenticated answer under /v1 carries.
 */
import type { CreditServiceMeta, KeyBucket, ListServiceMeta } from "@rda/contracts";
import type { FastifyReply } from "fastify";

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
