/**
 * Test helpers for the adapters (`@rda/upstream-client/testing`): a NATS request to an adapter with its
 * reply frame decoded, and the simulator's control endpoints (faults, per-path request counts).
 */
import { type AdapterReplyMeta, decodeAdapterReply } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";

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
  const reply = await nats.request(subject, payload, { timeout: 20_000 });
  const decoded = decodeAdapterReply(reply.data);
  const data = decoded.data ? JSON.parse(new TextDecoder().decode(decoded.data)) : undefined;
  return { meta: decoded.meta, data };
}

export interface FaultSpec {
  readonly mode: "error" | "busy" | "ratelimit" | "timeout" | "garbage";
  readonly rate?: number;
  readonly path?: string;
  readonly count?: number;
}

export interface SimStats {
  readonly requests: Record<string, number>;
  readonly total: number;
}

/** The simulator's control endpoints (DESIGN.md, "Upstream simulator"). */
export function simControl(simUrl: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${simUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    addFault: (spec: FaultSpec) => call("POST", "/__sim/faults", spec),
    clearFaults: () => call("DELETE", "/__sim/faults"),
    stats: () => call("GET", "/__sim/stats") as Promise<SimStats>,
    /** Requests the simulator saw on one path since it started. */
    requestsOn: async (path: string) => ((await call("GET", "/__sim/stats")) as SimStats).requests[path] ?? 0,
  };
}
