/**
 * The reference's examples are real: each example request passes the gateway's own validation, each
 * example 200 body passes its operation's response schema, and each error example is the catalog's
 * message for an error the endpoint can answer.
 */
import { describe, expect, it } from "vitest";
import {
  buildOpenApiDocument,
  ERRORS,
  envelopeSchemaOf,
  errorBodySchema,
  OPERATION_EXAMPLES,
  OPERATIONS,
  type OperationName,
  parseHttpParams,
} from "../src/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an arbitrary JSON document by path.
type Json = Record<string, any>;
const document = buildOpenApiDocument({ topUpUrl: "https://portal.example/topup" }) as Json;
const names = Object.keys(OPERATIONS) as OperationName[];

describe("the OpenAPI document's examples", () => {
  it.each(names)("%s: the example request passes the gateway's parameter validation", (name) => {
    const operation = OPERATIONS[name];
    const { params } = OPERATION_EXAMPLES[name];
    const query = Object.fromEntries(
      Object.entries(params)
        .filter(([key]) => !(operation.pathParams as readonly string[]).includes(key))
        .map(([key, value]) => [key, String(value)]),
    );
    const path = Object.fromEntries(operation.pathParams.map((key: string) => [key, String(params[key])]));
    const parsed = parseHttpParams(operation, query, path);
    expect(parsed.ok ? "valid" : parsed.error).toBe("valid");
  });

  it.each(names)("%s: the example 200 body passes the operation's response schema", (name) => {
    const body = document.paths[OPERATIONS[name].path].get.responses["200"].content["application/json"];
    const examples = Object.values(body.examples) as { value: unknown }[];
    expect(examples).toHaveLength(1);
    const parsed = envelopeSchemaOf(name).safeParse(examples[0]!.value);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it.each(names)("%s: every parameter of the example request shows its value", (name) => {
    const parameters = document.paths[OPERATIONS[name].path].get.parameters as Json[];
    for (const [param, value] of Object.entries(OPERATION_EXAMPLES[name].params)) {
      expect(parameters.find((p) => p.name === param)?.example, param).toBe(value);
    }
  });

  it("shows a comment tree whose cut part is a `more` stub, and a list page with its cursor", () => {
    const tree = OPERATION_EXAMPLES.getCommentTree.response as Json;
    expect(tree.data.some((node: Json) => node.kind === "more" && node.data.count > 0)).toBe(true);
    const posts = OPERATION_EXAMPLES.listPosts.response as Json;
    expect(posts._service.cursor).toBe(posts.data.at(-1).created_utc);
  });

  it("gives every error status of every endpoint one example per catalog code, in the catalog's words", () => {
    for (const [name, response] of Object.entries(document.components.responses) as [string, Json][]) {
      const status = Number(name.replace("Error", ""));
      const examples = response.content["application/json"].examples as Record<string, { value: unknown }>;
      const codes = Object.keys(examples);
      expect(codes.length, name).toBeGreaterThan(0);
      for (const code of codes) {
        const entry = ERRORS[code as keyof typeof ERRORS];
        expect(entry.status, code).toBe(status);
        const body = errorBodySchema.strict().parse(examples[code]!.value);
        expect(body.error.startsWith(entry.message), code).toBe(true);
      }
    }
    const badRequest = document.components.responses.Error400.content["application/json"].examples;
    expect(badRequest.invalid_parameter.value.error).toBe(
      "invalid parameter: parameter 'limit' must be an integer from 1 to 100",
    );
    const noCredits = document.components.responses.Error402.content["application/json"].examples;
    expect(noCredits.insufficient_credits.value.error).toContain("top up at https://portal.example/topup");
  });
});
