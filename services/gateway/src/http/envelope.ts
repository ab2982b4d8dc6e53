/**
 * The 200 envelope `{data, _service}` (docs/api.md#response-envelope). The adapter's data bytes are
 * spliced in as they came (never parsed or re-serialised on the hot path); only `_service` is
 * serialised. The credit headers equal the body's values.
 */
import type { CreditServiceMeta, ListServiceMeta } from "@rda/contracts";
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
