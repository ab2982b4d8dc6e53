/**
 * The tools' JSON Schemas as every model vendor takes them (README, "Schemas every model accepts").
 * zod writes 2020-12 JSON Schema; from it we keep only the keywords that OpenAI function calling,
 * Anthropic tool use and Gemini function declarations all accept, so a client can hand a tool to any
 * of them unchanged:
 * - no `$schema`: Gemini refuses the key, and MCP's default dialect (2020-12) applies without it;
 * - no `additionalProperties` / `propertyNames`: Gemini refuses them. The server still refuses an
 *   unknown argument: it validates with the zod schema, not with this presentation;
 * - `$ref`s are inlined: Gemini has no references;
 * - one `type` per property: a nullable value becomes `anyOf` with `{type: "null"}`; the one other
 *   union we have is a time bound, which the contract takes as text
 *   or as a number; it is declared as a string (every number can be written as text) and a number
 *   is still accepted; likewise an upstream-style boolean filter (`true` or the text forms `yes`,
 *   `1`…) is declared a boolean, and its text forms are still accepted;
 * - zod's safe-integer bounds on every integer say nothing and are left out, and so are the API's
 *   `examples` (documentation for the OpenAPI page, which not every vendor takes);
 * - a boolean literal (`edited` is `false` or a time) keeps its `type: "boolean"` and loses its
 *   `const`, which Gemini refuses: the schema says a little less, never something untrue.
 * Any other keyword stops the service at start: a schema change that a vendor would refuse fails the
 * tests, not an agent's session.
 */
import { z } from "zod";

export type JsonSchema = { [key: string]: unknown };

const KEPT_AS_IS = new Set([
  "description",
  "title",
  "required",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "default",
  "minItems",
  "maxItems",
]);

const DROPPED = new Set(["$schema", "additionalProperties", "propertyNames", "$defs", "examples"]);

export function portableJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const raw = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "throw" }) as JsonSchema;
  const defs = (raw.$defs ?? {}) as Record<string, JsonSchema>;
  return clean(raw, defs, "#");
}

function clean(node: JsonSchema, defs: Record<string, JsonSchema>, at: string): JsonSchema {
  if (typeof node.$ref === "string") return clean(resolve(node.$ref, defs, at), defs, at);
  if (isNullableType(node.type)) return nullable(node, defs, at);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === "type") out.type = singleType(value, at);
    else if (key === "properties") out.properties = cleanEach(value as Record<string, JsonSchema>, defs, at);
    else if (key === "items") out.items = clean(value as JsonSchema, defs, `${at}/items`);
    else if (key === "anyOf")
      out.anyOf = (value as JsonSchema[]).map((option, i) => clean(option, defs, `${at}/anyOf/${i}`));
    else if ((key === "minimum" || key === "maximum") && isSafeIntegerBound(value)) continue;
    else if (key === "const" && typeof value === "boolean" && node.type === "boolean") continue;
    else if (KEPT_AS_IS.has(key)) out[key] = value;
    else throw new Error(`${at}: the JSON Schema keyword '${key}' is not accepted by every model vendor`);
  }
  return out;
}

function cleanEach(properties: Record<string, JsonSchema>, defs: Record<string, JsonSchema>, at: string) {
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) out[name] = clean(schema, defs, `${at}/${name}`);
  return out;
}

function resolve(ref: string, defs: Record<string, JsonSchema>, at: string): JsonSchema {
  const target = defs[ref.replace(/^#\/\$defs\//, "")];
  if (!target) throw new Error(`${at}: cannot inline ${ref}`);
  return target;
}

/** `type: [T, "null"]` becomes `anyOf: [{type: T, …}, {type: "null"}]`, which every vendor reads. */
function isNullableType(type: unknown): type is string[] {
  return Array.isArray(type) && type.length === 2 && type.includes("null");
}

function nullable(node: JsonSchema, defs: Record<string, JsonSchema>, at: string): JsonSchema {
  const { type, description, ...rest } = node;
  const other = (type as string[]).find((name) => name !== "null");
  const anyOf = [clean({ ...rest, type: other }, defs, `${at}/anyOf/0`), { type: "null" }];
  return description === undefined ? { anyOf } : { description, anyOf };
}

function singleType(value: unknown, at: string): string {
  if (typeof value === "string") return value;
  const types = value as string[];
  if (types.length === 2 && types.includes("string") && types.includes("number")) return "string";
  if (types.length === 2 && types.includes("string") && types.includes("boolean")) return "boolean";
  throw new Error(`${at}: a property has several types (${JSON.stringify(value)}); Gemini takes one`);
}

function isSafeIntegerBound(value: unknown): boolean {
  return value === Number.MAX_SAFE_INTEGER || value === Number.MIN_SAFE_INTEGER;
}
