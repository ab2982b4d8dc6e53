/**
 * The key's own bucket as `RateLimit-Policy` and `RateLimit` (the IETF httpapi RateLimit header
 * fields draft, structured-field lists): the policy's quota `q` is the burst, refilled over window
 * `w` seconds at the key's rate; `r` is what is left now and `t` the seconds until the bucket is
 * full again. Sent on every authenticated answer under /v1 (docs/api.md#rate-limits).
 */
import type { KeyBucket } from "@rda/contracts";
import type { FastifyReply } from "fastify";

const POLICY = '"per-key"';

export function setRateLimitHeaders(reply: FastifyReply, bucket: KeyBucket): void {
  const window = Math.max(1, Math.ceil(bucket.burst / bucket.qps));
  reply.header("ratelimit-policy", `${POLICY};q=${bucket.burst};w=${window}`);
  reply.header("ratelimit", `${POLICY};r=${bucket.remaining};t=${bucket.reset_seconds}`);
}
