/**
 * A small stand-in for the public HTTP API, for tests of its clients (the SDK, the MCP service)
 * without the whole stack. It validates parameters with the contracts' own schemas, keeps a balance
 * per key, charges as the API does (docs/api.md#charging: 1 credit per data call, 0 for the account,
 * never on 4xx) and can be told to fail the next calls with any status and headers. Real HTTP on an
 * ephemeral port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { OPERATIONS, type OperationContract, type OperationName, parseHttpParams } from "@rda/contracts";
import { presentedKey } from "@rda/service-kit";
import { sampleData } from "./sample-data.ts";

export interface FakeFailure {
  status: number;
  error: string;
  /** The catalog code the body carries, as the API's errors do (docs/api.md#errors). */
  code?: string;
  headers?: Record<string, string>;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
}

export interface FakeGateway {
  url: string;
  /** Balance per key; set or read it in a test. */
  balances: Map<string, number>;
  /** Every request received, in order. */
  seen: SeenRequest[];
  /** The next calls fail with these answers, one each, before charging (502 is charged then refunded). */
  failNext(...failures: FakeFailure[]): void;
  close(): Promise<void>;
}

export async function startFakeGateway(keys: Record<string, number> = {}): Promise<FakeGateway> {
  const balances = new Map(Object.entries(keys));
  const seen: SeenRequest[] = [];
  const failures: FakeFailure[] = [];
  const server = createServer((request, response) => {
    seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    answer(request, response, balances, failures);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    balances,
    seen,
    failNext: (...next) => void failures.push(...next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(
  request: IncomingMessage,
  response: ServerResponse,
  balances: Map<string, number>,
  failures: FakeFailure[],
) {
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
  if (failure && failure.status !== 502)
    return send(response, failure.status, failureBody(failure), failure.headers);
  const balance = balances.get(key)!;
  if (route.contract.credits === 1 && balance <= 0)
    return send(response, 402, { error: "insufficient credits" });
  if (failure) return send(response, 502, failureBody(failure), failure.headers); // debited, then refunded
  const remaining = balance - route.contract.credits;
  balances.set(key, remaining);
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

function failureBody(failure: FakeFailure): { error: string; code?: string } {
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

function matchRoute(pathname: string) {
  for (const [name, contract] of Object.entries(OPERATIONS) as [OperationName, OperationContract][]) {
    const pattern = new RegExp(`^${contract.path.replace(/\{([a-z_]+)\}/g, "(?<$1>[^/]+)")}$`);
    const match = pattern.exec(pathname);
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
