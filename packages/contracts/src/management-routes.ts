/**
 * The monitors and exports routes, each declared once (docs/api.md#monitors, #exports): method,
 * path, operationId, credits, whether it takes `Idempotency-Key`, and its rate-limit class. The
 * gateway registers what it serves from this table, the OpenAPI document marks the idempotent ones
 * from it, and test/contract/routes.declared.test.ts checks each is served, documented and reachable
 * in the SDK. The data and account routes are declared in OPERATIONS.
 */
import { MANAGEMENT_ERROR_CODES } from "./errors.ts";

export interface ManagementRoute {
  readonly operationId: string;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** As the OpenAPI document writes it (`/v1/monitors/{id}`). */
  readonly path: string;
  /** Credits a successful answer costs: pulling a monitor's page holding an item costs 1. */
  readonly credits: 0 | 1;
  /** A POST that creates work or a resource takes `Idempotency-Key` (docs/api.md#idempotency). */
  readonly idempotent: boolean;
  /** Every route spends a token of the key's own bucket; none takes the shared upstream reserve. */
  readonly rateLimit: "key";
  readonly errors: typeof MANAGEMENT_ERROR_CODES;
}

const route = (
  operationId: string,
  method: ManagementRoute["method"],
  path: string,
  options: { credits?: 0 | 1; idempotent?: boolean } = {},
): ManagementRoute => ({
  operationId,
  method,
  path,
  credits: options.credits ?? 0,
  idempotent: options.idempotent ?? false,
  rateLimit: "key",
  errors: MANAGEMENT_ERROR_CODES,
});

export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = [
  route("createMonitor", "POST", "/v1/monitors", { idempotent: true }),
  route("listMonitors", "GET", "/v1/monitors"),
  route("getMonitor", "GET", "/v1/monitors/{id}"),
  route("updateMonitor", "PATCH", "/v1/monitors/{id}"),
  route("deleteMonitor", "DELETE", "/v1/monitors/{id}"),
  route("pullMonitorItems", "GET", "/v1/monitors/{id}/items", { credits: 1 }),
  route("listMonitorDeliveries", "GET", "/v1/monitors/{id}/deliveries"),
  route("redeliverMonitorBatch", "POST", "/v1/monitors/{id}/deliveries/{delivery_id}/redeliver", {
    idempotent: true,
  }),
  route("testMonitorWebhook", "POST", "/v1/monitors/{id}/test"),
  route("rotateMonitorWebhookSecret", "POST", "/v1/monitors/{id}/rotate-secret"),
  route("createExport", "POST", "/v1/exports", { idempotent: true }),
  route("getExport", "GET", "/v1/exports/{id}"),
  route("startExport", "POST", "/v1/exports/{id}/start", { idempotent: true }),
  route("pauseExport", "POST", "/v1/exports/{id}/pause"),
  route("resumeExport", "POST", "/v1/exports/{id}/resume"),
  route("cancelExport", "POST", "/v1/exports/{id}/cancel"),
  route("downloadExport", "GET", "/v1/exports/{id}/file"),
];

/** The declared route of a method and path; throws for one not declared (a wiring mistake). */
export function managementRoute(method: string, path: string): ManagementRoute {
  const found = MANAGEMENT_ROUTES.find((entry) => entry.method === method && entry.path === path);
  if (found === undefined) throw new Error(`${method} ${path} is not declared in MANAGEMENT_ROUTES`);
  return found;
}
