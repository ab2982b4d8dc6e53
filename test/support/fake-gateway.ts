/**
 * A small stand-in for the public HTTP API, for tests of its clients (the SDK, the MCP service)
 * without the whole stack. It validates parameters with the contracts' own schemas, keeps a balance
 * per key, charges as the API does (docs/api.md#charging: 1 credit per data call, 0 for the account,
 * never on 4xx) and can be told to fail the next calls with any status and headers, or to serve one
 * and lose its answer. The monitors and exports routes (MANAGEMENT_ROUTES) it answers generically:
 * each does its work by counting it in `performed`, and one that takes `Idempotency-Key` answers a
 * repeat under the same key with the first answer again (docs/api.md#idempotency). Real HTTP on an
 * ephemeral port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  MANAGEMENT_ROUTES,
  OPERATIONS,
  type OperationContract,
  type OperationName,
  type PublicRoute,
  parseHttpParams,
} from "@rda/contracts";
import { presentedKey } from "@rda/service-kit";
import { sampleData } from "./sample-data.ts";

export type FakeFailure =
  /** Answered with this status instead, before anything is done or charged (502: charged, then refunded). */
  | {
      status: number;
      error: string;
      /** The catalog code the body carries, as the API's errors do (docs/api.md#errors). */
      code?: string;
      headers?: Record<string, string>;
    }
  /** Served (charged, performed, kept for a replay), then the connection is closed with no answer. */
  | { drop: true };

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface FakeGateway {
  url: string;
  /** Balance per key; set or read it in a test. */
  balances: Map<string, number>;
  /** Every request received, in order. */
  seen: SeenRequest[];
  /** How often each monitors or exports route did its work, by operationId; a replay does not count. */
  performed: Map<string, number>;
  /** The next calls fail with these, one each. */
  failNext(...failures: FakeFailure[]): void;
  close(): Promise<void>;
}

interface Kept {
  fingerprint: string;
  status: number;
  body: unknown;
}

interface State {
  balances: Map<string, number>;
  failures: FakeFailure[];
  performed: Map<string, number>;
  /** Answers kept for a replay, by API key and Idempotency-Key. */
  kept: Map<string, Kept>;
}

export async function startFakeGateway(keys: Record<string, number> = {}): Promise<FakeGateway> {
  const state: State = {
    balances: new Map(Object.entries(keys)),
    failures: [],
    performed: new Map(),
    kept: new Map(),
  };
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      if (!answerManaged(request, response, body, state)) answer(request, response, state);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    balances: state.balances,
    seen,
    performed: state.performed,
    failNext: (...next) => void state.failures.push(...next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(request: IncomingMessage, response: ServerResponse, state: State) {
  const { balances, failures } = state;
  const url = new URL(request.url ?? "/", "http://fake");
  const route = matchRoute(url.pathname);
  if (!route) return send(response, 404, { error: "no such endpoint" });
  if (request.method !== "GET") return send(response, 405, { error: "only GET is allowed" });
  const parsed = parseHttpParams<Record<string, unknown>>(
    route.contract,
    Object.fromEntries(url.searchParams),
    route.pathValues,
  );
  if (!parsed.ok) return send(response, 400, { error: parsed.error });
  const key = presentedKey(request.headers);
  if (key === undefined || !balances.has(key))
    return send(response, 401, { error: "unknown or revoked API key" });
  const failure = failures.shift();
  if (failure && "status" in failure && failure.status !== 502)
    return send(response, failure.status, failureBody(failure), failure.headers);
  const balance = balances.get(key)!;
  if (route.contract.credits === 1 && balance <= 0)
    return send(response, 402, { error: "insufficient credits" });
  // A 502 is debited, then refunded: the balance stays.
  if (failure && "status" in failure) return send(response, 502, failureBody(failure), failure.headers);
  const remaining = balance - route.contract.credits;
  balances.set(key, remaining);
  if (failure) return request.socket.destroy();
  const data = sampleData(route.name, parsed.value, remaining);
  send(
    response,
    200,
    { data: data.data, _service: serviceMeta(route.contract, data, remaining) },
    {
      "x-credits-used": String(route.contract.credits),
      "x-credits-remaining": String(remaining),
    },
  );
}

/**
 * A monitors or exports route: false when the request is none. Its work is only counted: the answer
 * says which route did it and how many times it has, with the body it was asked with.
 */
function answerManaged(request: IncomingMessage, response: ServerResponse, body: string, state: State) {
  const { pathname } = new URL(request.url ?? "/", "http://fake");
  const route = MANAGEMENT_ROUTES.find(
    (each) => each.method === request.method && pathPattern(each.path).test(pathname),
  );
  if (route === undefined) return false;
  const key = presentedKey(request.headers);
  if (key === undefined || !state.balances.has(key)) {
    send(response, 401, { error: "unknown or revoked API key" });
    return true;
  }
  const failure = state.failures.shift();
  if (failure && "status" in failure) {
    send(response, failure.status, failureBody(failure), failure.headers);
    return true;
  }
  const idempotencyKey = route.idempotent ? request.headers["idempotency-key"] : undefined;
  const keptAs = typeof idempotencyKey === "string" ? `${key}:${idempotencyKey}` : undefined;
  const fingerprint = `${request.method} ${request.url} ${body}`;
  const kept = keptAs === undefined ? undefined : state.kept.get(keptAs);
  if (kept !== undefined) {
    if (kept.fingerprint !== fingerprint)
      send(response, 422, { error: "the Idempotency-Key was used with another request" });
    else send(response, kept.status, kept.body, { "idempotent-replayed": "true" });
    return true;
  }
  const performed = (state.performed.get(route.operationId) ?? 0) + 1;
  state.performed.set(route.operationId, performed);
  const status = successStatus(route);
  const answered = {
    data: { operation: route.operationId, performed, body: body === "" ? null : JSON.parse(body) },
    _service: { credits_used: 0, credits_remaining: state.balances.get(key) },
  };
  if (keptAs !== undefined) state.kept.set(keptAs, { fingerprint, status, body: answered });
  if (failure) request.socket.destroy();
  else send(response, status, answered);
  return true;
}

function successStatus(route: PublicRoute): number {
  return route.answers[0]?.status ?? 200;
}

/** The body of a scripted failure: its sentence, and its catalog code when it has one. */
function failureBody(failure: Extract<FakeFailure, { status: number }>): { error: string; code?: string } {
  return failure.code === undefined ? { error: failure.error } : { error: failure.error, code: failure.code };
}

function serviceMeta(
  contract: OperationContract,
  data: ReturnType<typeof sampleData>,
  remaining: number,
): Record<string, unknown> {
  const credits = { credits_used: contract.credits, credits_remaining: remaining };
  return contract.meta === "list" ? { cursor: data.cursor, has_more: data.hasMore, ...credits } : credits;
}

function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{([a-z_]+)\}/g, "(?<$1>[^/]+)")}$`);
}

function matchRoute(pathname: string) {
  for (const [name, contract] of Object.entries(OPERATIONS) as [OperationName, OperationContract][]) {
    const match = pathPattern(contract.path).exec(pathname);
    if (!match) continue;
    const pathValues: Record<string, string> = {};
    for (const [param, raw] of Object.entries(match.groups ?? {}))
      pathValues[param] = decodeURIComponent(raw);
    return { name, contract, pathValues };
  }
  return undefined;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}
