/**
 * The one builder of the OpenAPI document's public routes, over their one declaration (PUBLIC_ROUTES):
 * path and query parameters and the body from the zod schemas the gateway and the services validate
 * with (as input), answers from the schemas of what they answer (as output, the named ones as
 * components), and the errors from the catalog codes each route declares: every error status it can
 * answer, described by its own codes, and the whole list in `x-error-codes`. The real example
 * requests and answers of the data routes (openapi-examples.ts) go with their route.
 */
import { z } from "zod";
import { ERRORS, type ErrorCode, statusesOf } from "./errors.ts";
import { MANAGEMENT_TAGS } from "./management-routes.ts";
import { OPERATION_EXAMPLES, type OperationExample } from "./openapi-examples.ts";
import { type JsonObject, schemaRef } from "./openapi-extras.ts";
import type { PublicRoute, RouteAnswer, RouteBody } from "./public-routes.ts";

export const MANAGEMENT_TAG_LIST = Object.values(MANAGEMENT_TAGS);

/** The OpenAPI `paths` of the routes, each route under its path and method. */
export function describeRoutes(routes: readonly PublicRoute[]): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes)
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: describeRoute(route) };
  return paths;
}

/** The captured example of a route, for the data routes that have one. */
function exampleOf(route: PublicRoute): OperationExample | undefined {
  return (OPERATION_EXAMPLES as Readonly<Record<string, OperationExample>>)[route.operationId];
}

/** Answered from the shared cache: the request may bound its age, the answer says it. */
const isCached = (route: PublicRoute) => route.rateLimit === "key_and_upstream";

function describeRoute(route: PublicRoute): JsonObject {
  const example = exampleOf(route);
  const responses: JsonObject = {};
  for (const answer of route.answers)
    responses[String(answer.status)] = describeAnswer(route, answer, example);
  for (const status of statusesOf(route.errors))
    responses[String(status)] = {
      $ref: `#/components/responses/Error${status}`,
      description: describeCodes(route.errors.filter((code) => ERRORS[code].status === status)),
    };
  const parameters = [
    ...describeParameters(route, example?.params ?? {}),
    ...(route.idempotent ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
    ...(isCached(route) ? [{ $ref: "#/components/parameters/CacheControl" }] : []),
  ];
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: describeBody(route.body) } : {}),
    responses,
    "x-error-codes": route.errors,
    ...(example ? { "x-codeSamples": codeSamples(route, example) } : {}),
  };
}

/** A route's codes at one status, as a list a reader can switch on. */
function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `- \`${code}\`: ${ERRORS[code].description}`).join("\n");
}

/** A schema as the caller sends it (before defaults and transforms), without its dialect. */
function inputSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as JsonObject;
  return rest;
}

/**
 * A schema as the caller receives it. A named schema (its `.meta({ id })`) is a reference to its
 * component (componentSchemas in openapi.ts emits every named one), and so is each named schema
 * inside it: zod writes those as `#/$defs/Name`, pointed here at the components instead.
 */
function outputSchema(schema: z.ZodType): JsonObject {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: schemaRef(id) };
  const {
    $schema: _dialect,
    $defs: _named,
    ...rest
  } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "output",
    unrepresentable: "any",
  }) as JsonObject;
  return JSON.parse(
    JSON.stringify(rest).replace(
      /"#\/\$defs\/([A-Za-z0-9_]+)"/g,
      (_, name: string) => `"${schemaRef(name)}"`,
    ),
  ) as JsonObject;
}

/** The path's and the query's parameters, with the example request's values where there is one. */
function describeParameters(
  route: PublicRoute,
  examples: Readonly<Record<string, string | number>>,
): JsonObject[] {
  return Object.entries(route.params.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const inPath = route.pathParams.includes(name);
    const { description, examples: schemaExamples, ...json } = inputSchema(field);
    const example = examples[name] ?? (Array.isArray(schemaExamples) ? schemaExamples[0] : undefined);
    return {
      name,
      in: inPath ? "path" : "query",
      required: inPath || !field.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: json,
      ...(example !== undefined ? { example } : {}),
    };
  });
}

function describeBody(body: RouteBody): JsonObject {
  return {
    required: body.required,
    content: {
      "application/json": {
        schema: inputSchema(body.schema),
        ...(body.example !== undefined ? { example: body.example } : {}),
      },
    },
  };
}

function answerHeaders(route: PublicRoute): JsonObject {
  return {
    "x-credits-used": { $ref: "#/components/headers/CreditsUsed" },
    "x-credits-remaining": { $ref: "#/components/headers/CreditsRemaining" },
    "x-request-id": { $ref: "#/components/headers/RequestId" },
    "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
    RateLimit: { $ref: "#/components/headers/RateLimit" },
    ...(route.idempotent
      ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
      : {}),
    ...(isCached(route) ? { Age: { $ref: "#/components/headers/Age" } } : {}),
  };
}

function describeAnswer(
  route: PublicRoute,
  answer: RouteAnswer,
  example: OperationExample | undefined,
): JsonObject {
  if ("file" in answer) {
    const headers: JsonObject = { "x-request-id": { $ref: "#/components/headers/RequestId" } };
    for (const [name, description] of Object.entries(answer.headers))
      headers[name] = { description, schema: { type: "string" } };
    const content = Object.fromEntries(
      answer.file.map(({ mediaType, binary }) => [
        mediaType,
        { schema: binary ? { type: "string", contentEncoding: "binary" } : { type: "string" } },
      ]),
    );
    return { description: answer.description, headers, content };
  }
  const meta = answer.envelope === "list" ? "ListServiceMeta" : "CreditServiceMeta";
  const examples = example
    ? { examples: { [route.operationId]: { summary: requestLine(route, example), value: example.response } } }
    : {};
  return {
    description: answer.description,
    headers: answerHeaders(route),
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["data", "_service"],
          properties: { data: outputSchema(answer.data), _service: { $ref: schemaRef(meta) } },
        },
        ...examples,
      },
    },
  };
}

/** The example request as a path and query, e.g. `GET /v1/posts?subreddit=typescript&limit=3`. */
function requestLine(route: PublicRoute, example: OperationExample): string {
  let path = route.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(example.params)) {
    if (route.pathParams.includes(name)) path = path.replace(`{${name}}`, encodeURIComponent(value));
    else query.set(name, String(value));
  }
  const search = query.toString();
  return `${route.method} ${path}${search ? `?${search}` : ""}`;
}

/** The example request, as curl and as a call of the SDK (@rda/sdk). */
function codeSamples(route: PublicRoute, example: OperationExample): JsonObject[] {
  const target = requestLine(route, example).slice(`${route.method} `.length);
  const params = example.params;
  const args = Object.keys(params).length === 0 ? "" : JSON.stringify(params).replace(/"(\w+)":/g, "$1: ");
  return [
    {
      lang: "Shell",
      label: "curl",
      source: `curl -H "x-api-key: $RDA_API_KEY" "$RDA_BASE_URL${target}"`,
    },
    {
      lang: "JavaScript",
      label: "@rda/sdk",
      source: [
        'import { createGatewayClient } from "@rda/sdk";',
        "",
        "const api = createGatewayClient({ baseUrl: process.env.RDA_BASE_URL, apiKey: process.env.RDA_API_KEY });",
        `const result = await api.${route.operationId}(${args});`,
        "if (result.ok) console.log(result.value.data);",
      ].join("\n"),
    },
  ];
}
