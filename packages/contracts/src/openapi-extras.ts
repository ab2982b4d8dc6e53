/**
 * The parts of the OpenAPI document that are not a public route of PUBLIC_ROUTES: the remote MCP
 * endpoint and the gateway's unauthenticated operational endpoints, so the document lists every
 * route the gateway serves.
 */

export type JsonObject = Record<string, unknown>;

export const schemaRef = (id: string) => `#/components/schemas/${id}`;

export const EXTRA_TAGS = [
  {
    name: "MCP",
    description: "The same API for AI agents: a remote MCP server, billed like the endpoints it wraps.",
  },
  {
    name: "Operations",
    description: "Health and this document: unauthenticated and never charged.",
  },
] as const;

const errorContent = { "application/json": { schema: { $ref: schemaRef("Error") } } };

/**
 * `dataTools`: the MCP tool of each data and account route (OPERATIONS' `mcpTool`), so the list
 * cannot fall behind the routes; the export and monitor tools are the MCP service's own.
 */
export function describeMcpEndpoint(
  errorStatuses: readonly number[],
  dataTools: readonly string[],
): JsonObject {
  return {
    operationId: "mcp",
    tags: ["MCP"],
    summary: "Remote MCP server (Streamable HTTP, JSON-RPC)",
    description: `A data tool for each data endpoint and the account (${dataTools.join(", ")}), billed like the HTTP endpoint it wraps; free tools that start, follow and list exports and return an export's link, never its data; and tools that create, list and read monitors, priced like the monitors routes. Authenticated with the same key, or with an OAuth access token from the developer portal bound to one of the person's keys (hosted agents such as Claude and ChatGPT connectors, mcp-remote). Point an MCP client at this URL; the body is the client's JSON-RPC message.`,
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { McpOAuth: ["mcp"] }],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: { type: "object" },
          examples: {
            check_credits: {
              summary: "Call the free check_credits tool",
              value: {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "check_credits", arguments: {} },
              },
            },
          },
        },
      },
    },
    responses: {
      "200": { description: "A JSON-RPC response, as JSON or an event stream." },
      "202": { description: "The body held only notifications or responses; nothing to answer." },
      ...Object.fromEntries(
        errorStatuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
      ),
      "401": MCP_UNAUTHORIZED,
      ...MCP_SERVICE_ANSWERS,
    },
  };
}

/** /mcp's 401: the catalog's answers, plus the challenge that starts an OAuth client's discovery. */
const MCP_UNAUTHORIZED: JsonObject = {
  description:
    "No credential, an unknown or revoked API key, or an access token that is malformed, expired, for another resource, sent in the URL, or whose app was disconnected or key revoked. Not charged. The `WWW-Authenticate` challenge names the protected-resource metadata (RFC 9728), which names the authorization server.",
  headers: {
    "WWW-Authenticate": {
      description:
        'RFC 6750 Bearer challenge: `resource_metadata` (the metadata URL) and `scope`; when a credential was sent, also `error="invalid_token"` and `error_description`.',
      schema: { type: "string" },
      example:
        'Bearer error="invalid_token", error_description="the access token has expired", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    },
    "x-request-id": { $ref: "#/components/headers/RequestId" },
  },
  content: {
    "application/json": {
      schema: { $ref: schemaRef("Error") },
      examples: {
        missing: {
          summary: "No credential",
          value: {
            error:
              "missing API key: send it as 'x-api-key: <key>' or 'Authorization: Bearer <key>': or connect with OAuth (WWW-Authenticate names the metadata)",
            code: "missing_api_key",
          },
        },
        invalid_token: {
          summary: "An access token that is not accepted",
          value: { error: "invalid access token: the access token has expired", code: "invalid_token" },
        },
      },
    },
  },
};

/**
 * What the MCP service itself answers over HTTP, past the gateway: a JSON-RPC error object for a body
 * it cannot run, `{error}` for the HTTP-level refusals.
 */
const MCP_SERVICE_ANSWERS: JsonObject = {
  "400": {
    description:
      "The body is not JSON (JSON-RPC -32700), or a batch the negotiated protocol version does not allow (-32600); nothing in it runs. Not charged.",
    content: {
      "application/json": {
        schema: { type: "object" },
        example: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      },
    },
  },
  "403": {
    description: "A browser's request from an `Origin` the operator has not allowed (MCP_ALLOWED_ORIGINS).",
    content: errorContent,
  },
  "406": {
    description: "The `Accept` header admits no JSON (`application/json` or `text/event-stream`).",
    content: errorContent,
  },
};

/** The gateway's unauthenticated operational endpoints. */
export function describeOperationalEndpoints(): Record<string, JsonObject> {
  const notReady = {
    description: "Redis or NATS is unreachable; route traffic elsewhere.",
    content: {
      "application/json": {
        schema: { $ref: schemaRef("Error") },
        example: {
          error: "the service is temporarily unavailable; nothing was charged: not ready: redis down",
          code: "service_unavailable",
        },
      },
    },
  };
  return {
    "/livez": endpoint("livez", "Liveness", "The process is running and serving HTTP.", {
      "application/json": { schema: { type: "object" }, example: { status: "ok" } },
    }),
    "/readyz": endpoint(
      "readyz",
      "Readiness",
      "200 only while Redis is ready and NATS connected, so a load balancer sends work only to a gateway that can serve it.",
      {
        "application/json": {
          schema: { type: "object" },
          example: { status: "ready", checks: { redis: true, nats: true } },
        },
      },
      { "503": notReady },
    ),
    "/openapi.json": endpoint(
      "openapi",
      "This OpenAPI document",
      "The OpenAPI 3.1 description of the API, built from the schemas that validate every request. Rendered for people at /docs.",
      { "application/json": { schema: { type: "object" } } },
    ),
  };
}

function endpoint(
  operationId: string,
  summary: string,
  description: string,
  content: JsonObject,
  extra: JsonObject = {},
): JsonObject {
  return {
    get: {
      operationId,
      tags: ["Operations"],
      summary,
      description,
      security: [],
      responses: {
        "200": { description: "OK", content },
        "400": {
          description: "The GET request carried a body; GET requests take none.",
          content: {
            "application/json": {
              ...errorContent["application/json"],
              example: { error: "invalid parameter: GET requests take no body", code: "invalid_parameter" },
            },
          },
        },
        ...extra,
      },
    },
  };
}
