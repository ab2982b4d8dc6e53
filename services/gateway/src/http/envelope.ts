/**
 * The 200 envelope `{data, _service}` (spec §2). The adapter's data bytes are spliced in as they came
 * (architecture.md: never parsed or re-serialised on the hot path); only `_service` is serialised.
 */
import type { CreditServiceMeta, ListServiceMeta } from "@rda/contracts";
import type { FastifyReply } from "fastify";

const DATA_OPEN = Buffer.from('{"data":');
const SERVICE_OPEN = Buffer.from(',"_service":');
const CLOSE = Buffer.from("}");

export type ServiceMeta = ListServiceMeta | CreditServiceMeta;

export function sendEnvelope(reply: FastifyReply, data: Uint8Array, service: ServiceMeta): FastifyReply {
  const body = Buffer.concat([DATA_OPEN, data, SERVICE_OPEN, Buffer.from(JSON.stringify(service)), CLOSE]);
  // Spec §2 rule 2: the headers equal the body's values.
  return reply
    .code(200)
    .type("application/json; charset=utf-8")
    .header("x-credits-used", String(service.credits_used))
    .header("x-credits-remaining", String(service.credits_remaining))
    .send(body);
}
