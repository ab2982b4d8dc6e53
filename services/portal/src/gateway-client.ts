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

export interface PortalGateway {
  call(
    caller: PortalCaller,
    method: "GET" | "POST" | "DELETE",
    path: string,
    options?: CallOptions,
  ): Promise<GatewayAnswer | GatewayUnavailable>;
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
  return {
    async call(caller, method, path, options = {}) {
      if (credentials === undefined) return { unavailable: "PORTAL_GATEWAY_SECRET is unset" };
      const headers: Record<string, string> = {
        accept: "application/json",
        authorization: `Bearer ${await credentials.mint(caller)}`,
      };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
      if (options.requestId !== undefined) headers["x-request-id"] = options.requestId;
      try {
        const response = await fetch(`${settings.url}${path}`, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
        return answerOf(response.status, await response.json(), response.headers.get("retry-after"));
      } catch (error) {
        return { unavailable: `gateway ${method} ${path}: ${(error as Error).message}` };
      }
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

export function isUnavailable(answer: GatewayAnswer | GatewayUnavailable): answer is GatewayUnavailable {
  return "unavailable" in answer;
}
