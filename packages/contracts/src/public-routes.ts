/**
 * The one route model: every public route under /v1 (data, account, monitors, their webhooks'
 * deliveries, exports) is a `PublicRoute`, declared once: the data and account routes in
 * OPERATIONS (operations.ts, which adds what an adapter and an MCP tool need of them), the monitors
 * and exports routes in MANAGEMENT_ROUTES (management-routes.ts). From that one declaration the
 * gateway registers its handlers (and refuses to serve a route that is not declared), the OpenAPI
 * document is built by one builder (openapi-routes.ts), so the SDK and the Python client, and MCP's
 * data tools read their arguments and prices. test/contract/routes.declared.test.ts checks each is
 * served, documented in /openapi.json with its own error codes, and reachable in the SDK.
 */
import { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import { MANAGEMENT_ROUTES } from "./management-routes.ts";
import { OPERATIONS } from "./operations.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * `key`: spends a token of the key's own bucket; `key_and_upstream`: that, and a request of the
 * upstream budget every key shares when the answer is not cached (`global_rate_limited`): such a
 * route is answered from the shared cache, so it takes `Cache-Control` and answers `Age`.
 */
export type RateLimitClass = "key" | "key_and_upstream";

/** `list`: cursor and has_more in `_service`; `credits`: only the two credit fields (docs/api.md#response-envelope). */
export type ServiceMetaKind = "list" | "credits";

/** One success answer: its status, and the `data` of its `_service` envelope, or a file. */
export type RouteAnswer =
  | {
      readonly status: 200 | 201 | 202;
      readonly description: string;
      readonly data: z.ZodType;
      readonly envelope: ServiceMetaKind;
    }
  | {
      readonly status: 200;
      readonly description: string;
      /** The answer is a file of one of these media types, not an envelope. */
      readonly file: readonly { readonly mediaType: string; readonly binary: boolean }[];
      /** Headers the file's answer adds, by name: their description. */
      readonly headers: Readonly<Record<string, string>>;
    };

export interface RouteBody {
  readonly schema: z.ZodType;
  readonly required: boolean;
  readonly example?: unknown;
}

export interface PublicRoute {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** As the OpenAPI document writes it (`/v1/monitors/{id}`). */
  readonly path: string;
  /** The API reference's section the route is filed under. */
  readonly tag: string;
  readonly summary: string;
  readonly description: string;
  /**
   * Every parameter of the path and the query, in one object schema: what a caller may send in the
   * URL, with its limits, defaults and descriptions. Any other query parameter is refused (400).
   */
  readonly params: z.ZodObject;
  /** Names of params that travel in the path (`{name}`); the rest are query parameters. */
  readonly pathParams: readonly string[];
  /** The JSON body it reads; none: it reads no body. */
  readonly body: RouteBody | null;
  readonly answers: readonly RouteAnswer[];
  /** What it may answer besides its success: its own list of catalog codes (docs/api.md#errors). */
  readonly errors: readonly ErrorCode[];
  /** Credits a successful answer costs (a monitor's pulled page: when it holds an item). */
  readonly credits: 0 | 1;
  /** Whether it takes `Idempotency-Key` (docs/api.md#idempotency). */
  readonly idempotent: boolean;
  readonly rateLimit: RateLimitClass;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [...Object.values(OPERATIONS), ...MANAGEMENT_ROUTES];

/** The declared route of an operationId; throws for one not declared (a wiring mistake). */
export function publicRoute(operationId: string): PublicRoute {
  const found = PUBLIC_ROUTES.find((route) => route.operationId === operationId);
  if (found === undefined) throw new Error(`${operationId} is not declared in PUBLIC_ROUTES`);
  return found;
}

/**
 * The query a route reads: its params but those of the path, any other refused. A route that
 * answers a malformed id as an unknown thing (404, after the key) reads its path itself.
 */
export function querySchemaOf(route: PublicRoute): z.ZodObject {
  let schema = querySchemas.get(route);
  if (schema === undefined) {
    const shape = Object.fromEntries(
      Object.entries(route.params.shape).filter(([name]) => !route.pathParams.includes(name)),
    );
    schema = z.strictObject(shape);
    querySchemas.set(route, schema);
  }
  return schema;
}
const querySchemas = new WeakMap<PublicRoute, z.ZodObject>();
