/**
 * Test helper for the adapters (`@rda/adapter-kit/testing`): a NATS request to an adapter, as the
 * gateway sends it (reading past its progress messages), with the reply frame decoded.
 */
import { type AdapterReplyMeta, decodeAdapterReply } from "@rda/contracts";
import { type NatsConnection, requestWithProgress } from "@rda/service-kit";

export interface AdapterAnswer {
  readonly meta: AdapterReplyMeta;
  /** The data JSON, parsed; undefined on a failure outcome. */
  readonly data: unknown;
}

let sequence = 0;

export async function requestAdapter(
  nats: NatsConnection,
  subject: string,
  params: unknown,
): Promise<AdapterAnswer> {
  sequence += 1;
  const payload = JSON.stringify({ request_id: `test-${sequence}`, params });
  const reply = await requestWithProgress(nats, subject, payload, { timeoutMs: 20_000, silenceMs: 5_000 });
  if (!reply.ok) throw new Error(reply.error.message);
  const decoded = decodeAdapterReply(reply.value);
  if (!decoded.ok) throw new Error(decoded.error);
  const { meta, data } = decoded.value;
  return { meta, data: data ? JSON.parse(new TextDecoder().decode(data)) : undefined };
}
