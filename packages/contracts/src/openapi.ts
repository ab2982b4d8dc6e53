/**
 * Builds the OpenAPI 3.1 document from the same zod schemas that validate requests, so the document
 * cannot drift from the behaviour. OpenAPI 3.1 uses JSON Schema 2020-12, which zod emits natively.
 */
import { z } from "zod";
import { ACCOUNT_ERROR_STATUSES, DATA_ERROR_STATUSES } from "./errors.ts";
import { OPERATIONS, type OperationContract } from "./operations.ts";

export const API_VERSION = "1.0.0";

type JsonObject = Record<string, unknown>;
const COMPONENT_REF = (id: string) => `#/components/schemas/${id}`;

export interface OpenApiOptions {
  serverUrl?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const operation of Object.values(OPERATIONS)) {
    paths[operation.path] = { get: describeOperation(operation) };
  }
  paths["/mcp"] = { post: describeMcpEndpoint() };
  Object.assign(paths, describeOperationalEndpoints());
  return {
    openapi: "3.1.0",
    info: {
      title: "Reddit Data API",
      version: API_VERSION,
      description:
        "Read-only, pay-per-request access to public Reddit posts, comments, comment trees, community search and rules, and user profile aggregates. 1 credit per data request; GET /v1/account is free. Requests failing with 400, 401, 402 or 429 are not charged; a 502 after the debit is refunded automatically.",
    },
    servers: [{ url: options.serverUrl ?? "/" }],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
        BearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
      },
      responses: errorResponses(),
      headers: responseHeaders(),
    },
  };
}

function componentSchemas(): JsonObject {
  const all = z.toJSONSchema(z.globalRegistry, { target: "draft-2020-12", uri: COMPONENT_REF, io: "output" });
  const schemas: JsonObject = {};
  for (const [id, schema] of Object.entries(all.schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
    schemas[id] = rest;
  }
  return schemas;
}

function describeOperation(operation: OperationContract): JsonObject {
  const errorStatuses = operation.adapter === null ? ACCOUNT_ERROR_STATUSES : DATA_ERROR_STATUSES;
  const responses: JsonObject = {
    "200": {
      description: `Success. Costs ${operation.credits} credit${operation.credits === 1 ? "" : "s"}.`,
      headers: {
        "x-credits-used": { $ref: "#/components/headers/CreditsUsed" },
        "x-credits-remaining": { $ref: "#/components/headers/CreditsRemaining" },
        "x-request-id": { $ref: "#/components/headers/RequestId" },
      },
      content: { "application/json": { schema: envelopeJsonSchema(operation) } },
    },
  };
  for (const status of errorStatuses)
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    parameters: describeParameters(operation),
    responses,
  };
}

function envelopeJsonSchema(operation: OperationContract): JsonObject {
  const meta = operation.meta === "list" ? "ListServiceMeta" : "CreditServiceMeta";
  return {
    type: "object",
    required: ["data", "_service"],
    properties: { data: dataJsonSchema(operation.data), _service: { $ref: COMPONENT_REF(meta) } },
  };
}

function dataJsonSchema(data: z.ZodType): JsonObject {
  if (data instanceof z.ZodArray) return { type: "array", items: dataJsonSchema(data.element as z.ZodType) };
  const id = z.globalRegistry.get(data)?.id;
  if (!id) throw new Error("every response data schema must carry a component id in its meta");
  return { $ref: COMPONENT_REF(id) };
}

function describeParameters(operation: OperationContract): JsonObject[] {
  const shape = (operation.params as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, schema]) => {
    const inPath = operation.pathParams.includes(name);
    const json = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io: "input",
      unrepresentable: "any",
    }) as JsonObject;
    const { $schema: _dialect, description, ...jsonSchema } = json;
    return {
      name,
      in: inPath ? "path" : "query",
      required: inPath || !schema.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: jsonSchema,
    };
  });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Missing or invalid parameters. Not charged (a debit taken before the data source rejected the request is refunded).",
  401: "Missing, unknown or revoked API key. Not charged.",
  402: "Insufficient credit balance. The message includes a top-up link. Not charged.",
  429: "Rate limit exceeded: the key's own limit, or the shared upstream reserve (then x-ratelimit-scope: global). Not charged.",
  502: "The data source is unreachable or failing after retries. The credit is refunded automatically.",
  503: "A dependency of the service is briefly unavailable. Not charged; retry after Retry-After seconds.",
};

function errorResponses(): JsonObject {
  const responses: JsonObject = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    const headers: JsonObject = { "x-request-id": { $ref: "#/components/headers/RequestId" } };
    if (status === "429" || status === "503")
      headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
    if (status === "429") headers["x-ratelimit-scope"] = { $ref: "#/components/headers/RateLimitScope" };
    responses[`Error${status}`] = {
      description,
      headers,
      content: { "application/json": { schema: { $ref: COMPONENT_REF("Error") } } },
    };
  }
  return responses;
}

function responseHeaders(): JsonObject {
  const integer = { type: "integer", minimum: 0 };
  return {
    CreditsUsed: {
      description: "Credits this request used (0 or 1); equals _service.credits_used.",
      schema: integer,
    },
    CreditsRemaining: {
      description: "Balance after the request; equals _service.credits_remaining.",
      schema: integer,
    },
    RetryAfter: { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
    RateLimitScope: {
      description: "Present with value `global` only when the shared upstream reserve is exhausted.",
      schema: { type: "string", enum: ["global"] },
    },
    RequestId: {
      description: "The request's id (echoed from x-request-id, or generated).",
      schema: { type: "string" },
    },
  };
}

function describeMcpEndpoint(): JsonObject {
  return {
    operationId: "mcp",
    summary: "Remote MCP server (Streamable HTTP, JSON-RPC)",
    description:
      "Seven tools (search_posts, search_comments, get_comment_tree, search_subreddits, get_subreddit_rules, get_user_profile, check_credits), billed like the HTTP endpoints they wrap. Authenticated with the same key.",
    requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
    responses: {
      "200": { description: "A JSON-RPC response, as JSON or an event stream." },
      "401": { $ref: "#/components/responses/Error401" },
      "429": { $ref: "#/components/responses/Error429" },
    },
  };
}

/** The gateway's unauthenticated operational endpoints, so the document lists every route it serves. */
function describeOperationalEndpoints(): Record<string, JsonObject> {
  const endpoint = (operationId: string, summary: string, contentType: string, extra: JsonObject = {}) => ({
    get: {
      operationId,
      summary,
      tags: ["operations"],
      security: [],
      responses: { "200": { description: "OK", content: { [contentType]: { schema: {} } } }, ...extra },
    },
  });
  const notReady = {
    "503": {
      description: "Redis or NATS is unreachable; route traffic elsewhere.",
      content: { "application/json": { schema: { $ref: COMPONENT_REF("Error") } } },
    },
  };
  return {
    "/livez": endpoint("livez", "Liveness: the process is running", "application/json"),
    "/readyz": endpoint("readyz", "Readiness: Redis ready and NATS connected", "application/json", notReady),
    "/metrics": endpoint("metrics", "Prometheus metrics", "text/plain"),
    "/openapi.json": endpoint("openapi", "This OpenAPI 3.1 document", "application/json"),
  };
}
