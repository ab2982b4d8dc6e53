/**
 * Builds the OpenAPI 3.1 document from the same zod schemas that validate requests, so the document
 * cannot drift from the behaviour. OpenAPI 3.1 uses JSON Schema 2020-12, which zod emits natively.
 * Every public route is described by openapi-routes.ts from its one declaration (PUBLIC_ROUTES); the
 * operational endpoints and the /mcp entry are described in openapi-extras.ts.
 */
import { z } from "zod";
import { ERRORS, type ErrorCode, MCP_ERROR_CODES, statusesOf } from "./errors.ts";
import { errorExample } from "./openapi-examples.ts";
import {
  describeMcpEndpoint,
  describeOperationalEndpoints,
  EXTRA_TAGS,
  type JsonObject,
  schemaRef,
} from "./openapi-extras.ts";
import { API_DESCRIPTION } from "./openapi-intro.ts";
import { describeRoutes, MANAGEMENT_TAG_LIST } from "./openapi-routes.ts";
import { OPERATION_TAGS, OPERATIONS, type OperationContract } from "./operations.ts";
import { PUBLIC_ROUTES } from "./public-routes.ts";

export const API_VERSION = "1.0.0";

export interface OpenApiOptions {
  serverUrl?: string;
  /** The developer portal: where keys and credits come from; the document's contact. */
  portalUrl?: string;
  /** Quoted in the example 402, as the gateway quotes it. */
  topUpUrl?: string;
}

const DEFAULT_PORTAL_URL = "http://127.0.0.1:8060";

/** The reference's first line: where a reader gets the key every example needs. */
function getAKey(portalUrl: string): string {
  return `**[Get a key](${portalUrl}/signup)** in the developer portal: sign up with your email address, and each new key comes with free credits. Keys, balances, usage and buying credits: [${portalUrl}](${portalUrl}).`;
}

/** The reference's pointer to the clients the portal serves (scripts/pack-sdk.mjs, pack-python-client.mjs). */
function clients(portalUrl: string): string {
  return `## Clients\n\nThe developer portal serves a TypeScript SDK and a Python client (\`rda\`: typed methods, paging, safe retries, exports, monitors, webhook verification and pandas DataFrames); the install commands are shown with every new key. The Python client's guide, with a notebook walkthrough: [${portalUrl}/sdk/python-client.md](${portalUrl}/sdk/python-client.md).\n`;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonObject {
  const portalUrl = options.portalUrl ?? DEFAULT_PORTAL_URL;
  const paths: Record<string, JsonObject> = describeRoutes(PUBLIC_ROUTES);
  const dataTools = Object.values(OPERATIONS).map((operation) => operation.mcpTool);
  paths["/mcp"] = { post: describeMcpEndpoint(statusesOf(MCP_ERROR_CODES), dataTools) };
  // The OAuth flow's endpoints are the portal's (its RFC 8414 metadata lists them all).
  Object.assign(paths, describeOperationalEndpoints());
  return {
    openapi: "3.1.0",
    info: {
      title: "Reddit Data API",
      version: API_VERSION,
      description: `${getAKey(portalUrl)}\n\n${API_DESCRIPTION}\n${clients(portalUrl)}`,
      contact: { name: "Reddit Data API developer portal", url: portalUrl },
      license: { name: "Proprietary: use under the terms of the developer portal", url: portalUrl },
    },
    servers: [{ url: options.serverUrl ?? "/" }],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    tags: describeTags(),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
        BearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API_KEY>" },
        McpOAuth: {
          type: "oauth2",
          description:
            "For MCP clients at /mcp only: OAuth 2.1 with PKCE (S256) against the developer portal, which asks the person to pick the key the client may spend. Discovery: the 401's WWW-Authenticate names the protected-resource metadata, which names the portal; its metadata is at /.well-known/oauth-authorization-server. Dynamic client registration at /register.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${portalUrl}/oauth/authorize`,
              tokenUrl: `${portalUrl}/oauth/token`,
              refreshUrl: `${portalUrl}/oauth/token`,
              scopes: { mcp: "Call the MCP tools, spending the credits of the key the person picked" },
            },
          },
        },
      },
      responses: errorResponses(options.topUpUrl ?? `${portalUrl}/topup`),
      headers: responseHeaders(),
      parameters: requestParameters(),
    },
  };
}

const TAG_DESCRIPTIONS: Record<OperationContract["tag"], string> = {
  [OPERATION_TAGS.items]:
    "Posts and comments of a community or an author, page by page or by id, and a post's whole comment tree.",
  [OPERATION_TAGS.communities]: "Find communities by name prefix and read their rules.",
  [OPERATION_TAGS.users]: "Users' archived activity and karma aggregates: one by name, or a search.",
  [OPERATION_TAGS.activity]:
    "How many posts or comments a community or an author made per hour, day or week.",
  [OPERATION_TAGS.account]: "The key's own balance and rate limit, free of charge.",
};

function describeTags(): JsonObject[] {
  const api = Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description }));
  return [...api, ...MANAGEMENT_TAG_LIST, ...EXTRA_TAGS];
}

function componentSchemas(): JsonObject {
  const all = z.toJSONSchema(z.globalRegistry, { target: "draft-2020-12", uri: schemaRef, io: "output" });
  const schemas: JsonObject = {};
  for (const [id, schema] of Object.entries(all.schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
    schemas[id] = rest;
  }
  // Lets renderers and generators pick the node type by `kind` instead of trying both.
  schemas.CommentTreeNode = {
    ...(schemas.CommentTreeNode as JsonObject),
    discriminator: {
      propertyName: "kind",
      mapping: { t1: schemaRef("CommentNode"), more: schemaRef("MoreNode") },
    },
  };
  return schemas;
}

/** One response component per status any endpoint answers, described and exemplified by the catalog. */
function errorResponses(topUpUrl: string): JsonObject {
  const responses: JsonObject = {};
  const codes = [
    ...new Set<ErrorCode>([...PUBLIC_ROUTES.flatMap((route) => route.errors), ...MCP_ERROR_CODES]),
  ];
  for (const status of statusesOf(codes)) {
    // Every catalog entry of the status: a client reading the response learns each code it may carry.
    const atStatus = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => ERRORS[code].status === status);
    const headers: JsonObject = { "x-request-id": { $ref: "#/components/headers/RequestId" } };
    if (status === 429 || status === 503)
      headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
    if (atStatus.some((code) => "scope" in ERRORS[code]))
      headers["x-ratelimit-scope"] = { $ref: "#/components/headers/RateLimitScope" };
    if (status === 402 || status === 429 || atStatus.some((code) => ERRORS[code].refunded)) {
      headers["RateLimit-Policy"] = { $ref: "#/components/headers/RateLimitPolicy" };
      headers.RateLimit = { $ref: "#/components/headers/RateLimit" };
    }
    if (atStatus.some((code) => ERRORS[code].refunded)) {
      headers["x-credits-used"] = { $ref: "#/components/headers/CreditsCharged" };
      headers["x-credits-refunded"] = { $ref: "#/components/headers/CreditsRefunded" };
      headers["x-credits-remaining"] = { $ref: "#/components/headers/CreditsRemainingAfterRefund" };
    }
    const examples = Object.fromEntries(
      atStatus.map((code) => [
        code,
        { summary: ERRORS[code].description, value: errorExample(code, topUpUrl) },
      ]),
    );
    responses[`Error${status}`] = {
      description: atStatus.map((code) => ERRORS[code].description).join(" Or: "),
      headers,
      content: { "application/json": { schema: { $ref: schemaRef("Error") }, examples } },
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
      description:
        "Present with value `global` only on a 429 of the shared upstream budget: `global_rate_limited` (our budget had no turn in time) or `upstream_rate_limited` (the data source's own limit); never on an answer the shared cache holds.",
      schema: { type: "string", enum: ["global"] },
    },
    RequestId: {
      description: "The request's id (echoed from x-request-id, or generated).",
      schema: { type: "string" },
    },
    RateLimitPolicy: {
      description:
        "The key's own rate limit as a token bucket, in the IETF RateLimit header fields draft's syntax: quota `q` (the burst) refilled over window `w` seconds, e.g. `\"per-key\";q=10;w=5`. On every answer to an authenticated request under /v1 that reached the key's bucket.",
      schema: { type: "string" },
    },
    RateLimit: {
      description:
        'What is left of the key\'s bucket: `r` whole requests now, full again in `t` seconds, e.g. `"per-key";r=9;t=1`.',
      schema: { type: "string" },
    },
    IdempotentReplayed: {
      description:
        "`true` when this answer is the stored response of an earlier request with the same `Idempotency-Key`, replayed and not charged again.",
      schema: { type: "string", enum: ["true"] },
    },
    Age: {
      description:
        "Seconds since the upstream produced this data (0 for a fetch just made); `_service.cached_at` gives the moment. Never more than the data's freshness bound (by default 30 s for anything from the last 36 hours, 10 minutes for user aggregates, 1 hour for settled history, rules and community search), nor than the request's own `Cache-Control: max-age`. Absent on a replayed idempotent answer.",
      schema: integer,
    },
    CreditsCharged: {
      description: "When the request was debited and then refunded: the credits it was charged (1).",
      schema: integer,
    },
    CreditsRefunded: {
      description: "When the request was debited and then refunded: the credits given back (1).",
      schema: integer,
    },
    CreditsRemainingAfterRefund: {
      description: "When the request was debited and then refunded: the balance after the refund.",
      schema: integer,
    },
  };
}

function requestParameters(): JsonObject {
  return {
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes retries safe: a request repeated with the same key, the same API key and the same method, path and query (and body, on a POST) within 24 hours gets the first response again, with its original status and credit figures, and is charged nothing more. Only a served, charged response is replayed; a request that failed and was refunded is not, so its retry is a new attempt. The same key with a different request gets 422; while the first is still being served, a duplicate gets 409. Responses over 1 MiB are not stored.",
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
      example: "0d3c2a9e-5f0b-4a7c-9e8e-2b1f6f0c4d11",
    },
    CacheControl: {
      name: "Cache-Control",
      in: "header",
      required: false,
      description:
        "Bounds how old the answer may be: `no-cache` asks for data fetched from the archive for this request, `max-age=N` for data at most N seconds old. Without it, the data's own freshness bound applies (see the `Age` header). Every answer costs 1 credit, whether served from the shared cache or fetched.",
      schema: { type: "string" },
      example: "max-age=10",
    },
  };
}
