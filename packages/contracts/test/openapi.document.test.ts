import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { API_VERSION, buildOpenApiDocument, OPERATIONS } from "../src/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an arbitrary JSON document by path.
type Json = Record<string, any>;

describe("OpenAPI document", () => {
  const document = buildOpenApiDocument() as Json;

  it("is a valid OpenAPI 3.1 document with version 1.0.0", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result.valid ? [] : result.errors)).toBe(true);
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe(API_VERSION);
    expect(API_VERSION).toBe("1.0.0");
  });

  it("describes every operation at its path with both auth schemes", () => {
    for (const operation of Object.values(OPERATIONS)) {
      expect(document.paths[operation.path]?.get?.operationId).toBe(operation.operationId);
    }
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["ApiKeyHeader", "BearerAuth"]);
  });

  it("documents parameter limits and defaults from the validating schemas", () => {
    const limit = document.paths["/v1/posts"].get.parameters.find((p: Json) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 25 });
    const treeLimit = document.paths["/v1/comments/tree"].get.parameters.find(
      (p: Json) => p.name === "limit",
    );
    expect(treeLimit.schema).toMatchObject({ minimum: 1, maximum: 500, default: 50 });
    const name = document.paths["/v1/users/{name}"].get.parameters.find((p: Json) => p.name === "name");
    expect(name).toMatchObject({ in: "path", required: true, schema: { pattern: "^[A-Za-z0-9_-]{3,64}$" } });
    const postId = document.paths["/v1/comments/tree"].get.parameters.find((p: Json) => p.name === "post_id");
    expect(postId.required).toBe(true);
  });

  it("gives list endpoints cursor metadata and the others only the credit fields", () => {
    const metaOf = (path: string, method = "get") =>
      document.paths[path][method].responses["200"].content["application/json"].schema.properties._service
        .$ref;
    expect(metaOf("/v1/posts")).toBe("#/components/schemas/ListServiceMeta");
    expect(metaOf("/v1/subreddits/{name}/rules")).toBe("#/components/schemas/CreditServiceMeta");
    expect(metaOf("/v1/account")).toBe("#/components/schemas/CreditServiceMeta");
  });

  it("lists the error responses of spec §7, the account endpoint only 401 and 429", () => {
    expect(Object.keys(document.paths["/v1/posts"].get.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "402",
      "429",
      "502",
      "503",
    ]);
    expect(Object.keys(document.paths["/v1/account"].get.responses).sort()).toEqual(["200", "401", "429"]);
    expect(document.components.responses.Error429.headers).toHaveProperty("Retry-After");
    expect(document.components.responses.Error429.headers).toHaveProperty("x-ratelimit-scope");
  });
});
