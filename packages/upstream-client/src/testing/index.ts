/**
 * Test helper for code that calls the upstream (`@rda/upstream-client/testing`): the simulator's
 * control endpoints, to inject faults and count the requests it saw (docs/operations.md#upstream-simulator).
 */

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
