/**
 * The portal as a client of the gateway (docs/architecture.md): a signed-in person's monitors and
 * exports are asked of the gateway's internal listener (GATEWAY_URL) exactly as the key's own API
 * calls are, with a credential the portal signs per call (PORTAL_GATEWAY_SECRET: the key, and the
 * account the person signed in to; packages/service-kit/src/gateway-credentials.ts). The gateway
 * checks that the key is that account's and not revoked, the owning service that the monitor or
 * export is the key's; rate limits and `Idempotency-Key` hold as for the key's own calls. So the
 * portal keeps no copy of those rules, and needs no NATS rights on the monitors and exports subjects.
 */
import { createPortalCredentials, type PortalCaller } from "@rda/service-kit";

/** What the gateway answered: its `data` on success, else its `{error, code, param}`. */
export type GatewayAnswer =
  | { readonly ok: true; readonly status: number; readonly data: unknown }
  | {
      readonly ok: false;
      readonly status: number;
      /** The sentence for the person, as an API caller reads it. */
      readonly error: string;
      readonly code: string;
      /** The field at fault, when the refusal names one. */
      readonly param?: string;
      readonly retryAfterSeconds?: number;
    };

/** No answer at all (unreachable, timed out, not JSON, no secret set): the page says to retry. */
export interface GatewayUnavailable {
  readonly unavailable: string;
}

export interface CallOptions {
  readonly body?: unknown;
  /** The form's own token (a hidden field), so a double submit makes one thing. */
  readonly idempotencyKey?: string;
  /** The request id the gateway logs beside the portal's. */
  readonly requestId?: string;
}

/** A file the gateway streams (an export's): its headers and body, read on by the page. */
export interface GatewayFile {
  readonly ok: true;
  readonly status: number;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array>;
}

export interface PortalGateway {
  call(
    caller: PortalCaller,
    method: "GET" | "POST" | "DELETE",
    path: string,
    options?: CallOptions,
  ): Promise<GatewayAnswer | GatewayUnavailable>;
  /** A GET answered with a file: the stream on success, else the refusal as `call` answers it. */
  file(
    caller: PortalCaller,
    path: string,
  ): Promise<GatewayFile | Extract<GatewayAnswer, { ok: false }> | GatewayUnavailable>;
}

/**
 * Longer than the gateway's own longest wait on the owning service (a monitor's create reads an
 * upstream page for its estimate: 40 s), so its answer, not a timeout here, is what a page shows.
 */
const CALL_TIMEOUT_MS = 45_000;

export function createPortalGateway(settings: {
  readonly url: string;
  readonly secret: string | undefined;
}): PortalGateway {
  const credentials = settings.secret === undefined ? undefined : createPortalCredentials(settings.secret);
  /** The response once its headers arrived (the body may stream on), or why there is none. */
  const send = async (
    caller: PortalCaller,
    method: string,
    path: string,
    options: CallOptions,
  ): Promise<Response | GatewayUnavailable> => {
    if (credentials === undefined) return { unavailable: "PORTAL_GATEWAY_SECRET is unset" };
    const headers: Record<string, string> = { authorization: `Bearer ${await credentials.mint(caller)}` };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
    if (options.requestId !== undefined) headers["x-request-id"] = options.requestId;
    // The deadline is for the answer to start: a file may then take as long as it takes to stream.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error("no answer in time")), CALL_TIMEOUT_MS);
    try {
      return await fetch(`${settings.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: abort.signal,
      });
    } catch (error) {
      return { unavailable: `gateway ${method} ${path}: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  };
  const read = async (response: Response, what: string): Promise<GatewayAnswer | GatewayUnavailable> => {
    const body: unknown = await response.json().catch(() => undefined);
    if (body === undefined) return { unavailable: `gateway ${what}: answered ${response.status}, not JSON` };
    return answerOf(response.status, body, response.headers.get("retry-after"));
  };
  return {
    async call(caller, method, path, options = {}) {
      const response = await send(caller, method, path, options);
      return response instanceof Response ? read(response, `${method} ${path}`) : response;
    },
    async file(caller, path) {
      const response = await send(caller, "GET", path, {});
      if (!(response instanceof Response)) return response;
      if (response.status === 200 && response.body !== null)
        return { ok: true, status: 200, headers: response.headers, body: response.body };
      const answer = await read(response, `GET ${path}`);
      if (isUnavailable(answer) || !answer.ok) return answer;
      return { unavailable: `gateway GET ${path}: answered ${answer.status} without a file` };
    },
  };
}

function answerOf(
  status: number,
  body: unknown,
  retryAfter: string | null,
): GatewayAnswer | GatewayUnavailable {
  const json = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (status < 300) return { ok: true, status, data: json.data };
  if (typeof json.error !== "string" || typeof json.code !== "string")
    return { unavailable: `gateway answered ${status} without an error body` };
  const seconds = Number(retryAfter);
  return {
    ok: false,
    status,
    error: json.error,
    code: json.code,
    ...(typeof json.param === "string" ? { param: json.param } : {}),
    ...(Number.isFinite(seconds) && seconds > 0 ? { retryAfterSeconds: seconds } : {}),
  };
}

export function isUnavailable<T extends object>(
  answer: T | GatewayUnavailable,
): answer is GatewayUnavailable {
  return "unavailable" in answer;
}
