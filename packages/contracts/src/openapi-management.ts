/**
 * The monitors and exports routes in the OpenAPI document, derived from their declarations
 * (MANAGEMENT_ROUTES): path parameters, query and body from the zod schemas the gateway and the
 * services validate with (as input), answers from the schemas of what they answer (as output, the
 * named ones as components), errors from the catalog codes each route declares.
 */
import { z } from "zod";
import { statusesOf } from "./errors.ts";
import {
  MANAGEMENT_ROUTES,
  MANAGEMENT_TAGS,
  type ManagementRoute,
  type RouteAnswer,
} from "./management-routes.ts";
import { type JsonObject, schemaRef } from "./openapi-extras.ts";

export const MANAGEMENT_TAG_LIST = Object.values(MANAGEMENT_TAGS);

export function describeManagementRoutes(): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const route of MANAGEMENT_ROUTES)
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: describeRoute(route) };
  return paths;
}

function describeRoute(route: ManagementRoute): JsonObject {
  const responses: JsonObject = {};
  for (const answer of route.answers) responses[String(answer.status)] = describeAnswer(answer);
  for (const status of statusesOf(route.errors))
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const parameters = [
    ...parametersOf(route.pathParams, "path"),
    ...(route.query ? parametersOf(route.query, "query") : []),
    ...(route.idempotent ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
  ];
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: describeBody(route.body) } : {}),
    responses,
  };
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

function parametersOf(schema: z.ZodObject, place: "path" | "query"): JsonObject[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const { description, examples, ...json } = inputSchema(field);
    const example = Array.isArray(examples) ? examples[0] : undefined;
    return {
      name,
      in: place,
      required: place === "path" || !field.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: json,
      ...(example !== undefined ? { example } : {}),
    };
  });
}

function describeBody(body: NonNullable<ManagementRoute["body"]>): JsonObject {
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

const ANSWER_HEADERS: JsonObject = {
  "x-credits-used": { $ref: "#/components/headers/CreditsUsed" },
  "x-credits-remaining": { $ref: "#/components/headers/CreditsRemaining" },
  "x-request-id": { $ref: "#/components/headers/RequestId" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};

function describeAnswer(answer: RouteAnswer): JsonObject {
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
  return {
    description: answer.description,
    headers: ANSWER_HEADERS,
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["data", "_service"],
          properties: { data: outputSchema(answer.data), _service: { $ref: schemaRef("CreditServiceMeta") } },
        },
      },
    },
  };
}
