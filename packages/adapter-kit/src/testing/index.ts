/**
 * Test helper for the adapters (`@rda/adapter-kit/testing`): a NATS request to an adapter, as the
 * gateway sends it (reading past its progress messages), with the reply frame decoded.
 */
import { type AdapterReplyMeta, decodeAdapterReply } from "@rda/contracts";
import { type NatsConnection, requestWithProgress } from "@rda/service-kit";

export interface AdapterAnswer {
  /**
   * The reply's metadata without what describes the fetch behind it (`fetched_at_ms`, `max_age_s`,
   * `source`), which changes with every fetch: see `fetchedAtMs` and `fetch`.
   */
  readonly meta: AdapterReplyMeta;
  /** The data JSON, parsed; undefined on a failure outcome. */
  readonly data: unknown;
  /** When the upstream produced the oldest answer behind an ok reply (its `Age`), epoch ms. */
  readonly fetchedAtMs: number | undefined;
  /** How long the answer may be served again, and how its upstream answers were had. */
  readonly fetch: { readonly maxAgeS: number | undefined; readonly source: string | undefined };
}

let sequence = 0;

export async function requestAdapter(
  nats: NatsConnection,
  subject: string,
  params: unknown,
  call: { readonly max_age_s?: number; readonly priority?: "interactive" | "monitors" | "exports" } = {},
): Promise<AdapterAnswer> {
  sequence += 1;
  const payload = JSON.stringify({ request_id: `test-${sequence}`, params, ...call });
  const reply = await requestWithProgress(nats, subject, payload, { timeoutMs: 20_000, silenceMs: 5_000 });
  if (!reply.ok) throw new Error(reply.error.message);
  const decoded = decodeAdapterReply(reply.value);
  if (!decoded.ok) throw new Error(decoded.error);
  const { data } = decoded.value;
  const {
    fetched_at_ms: fetchedAtMs,
    max_age_s: maxAgeS,
    source,
    ...meta
  } = decoded.value.meta as AdapterReplyMeta & {
    fetched_at_ms?: number;
    max_age_s?: number;
    source?: string;
  };
  return {
    meta: meta as AdapterReplyMeta,
    data: data ? JSON.parse(new TextDecoder().decode(data)) : undefined,
    fetchedAtMs,
    fetch: { maxAgeS, source },
  };
}
