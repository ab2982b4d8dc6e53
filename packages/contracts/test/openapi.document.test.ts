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

  it("describes every operation at its path with both key schemes, and OAuth for /mcp alone", () => {
    for (const operation of Object.values(OPERATIONS)) {
      expect(document.paths[operation.path]?.get?.operationId).toBe(operation.operationId);
    }
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      "ApiKeyHeader",
      "BearerAuth",
      "McpOAuth",
    ]);
    expect(document.security).toEqual([{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
    const mcp = (document.paths as Record<string, { post?: Record<string, unknown> }>)["/mcp"]?.post as {
      security: unknown[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(mcp.security).toContainEqual({ McpOAuth: ["mcp"] });
    // The data tools it names are those of the routes, every one of them.
    for (const operation of Object.values(OPERATIONS))
      expect((mcp as { description?: string }).description).toContain(operation.mcpTool);
    expect(mcp.responses["401"]?.headers?.["WWW-Authenticate"]).toBeDefined();
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

  it("lists every status a data endpoint or the account endpoint can answer, from the error catalog", () => {
    expect(Object.keys(document.paths["/v1/posts"].get.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "402",
      "408",
      "409",
      "414",
      "422",
      "429",
      "431",
      "500",
      "502",
      "503",
    ]);
    expect(Object.keys(document.paths["/v1/account"].get.responses).sort()).toEqual([
      "200",
      "401",
      "408",
      "414",
      "429",
      "431",
      "500",
      "503",
    ]);
    expect(document.components.responses.Error429.headers).toHaveProperty("Retry-After");
    expect(document.components.responses.Error429.headers).toHaveProperty("x-ratelimit-scope");
  });

  it("types the full common field lists of Post and Comment, and still lets unknown upstream fields through", () => {
    const post = document.components.schemas.Post;
    for (const field of [
      "id",
      "name",
      "title",
      "selftext",
      "author_fullname",
      "subreddit_id",
      "url",
      "domain",
    ])
      expect(post.properties[field]?.type, field).toBe("string");
    for (const field of ["is_self", "over_18", "spoiler", "stickied", "locked", "hide_score"])
      expect(post.properties[field]?.type, field).toBe("boolean");
    for (const field of ["created_utc", "score", "num_comments", "num_crossposts", "subreddit_subscribers"])
      expect(post.properties[field]?.type, field).toBe("integer");
    expect(Object.keys(post.properties).length).toBeGreaterThanOrEqual(55);
    expect(post.additionalProperties).toEqual({});
    const comment = document.components.schemas.Comment;
    for (const field of ["body", "link_id", "parent_id", "permalink", "controversiality", "is_submitter"])
      expect(comment.properties[field], field).toBeDefined();
    expect(Object.keys(comment.properties).length).toBeGreaterThanOrEqual(30);
    expect(comment.additionalProperties).toEqual({});
  });

  it("types a comment tree node's data: a Comment for kind t1, a MoreStub for kind more", () => {
    const { CommentTreeNode, CommentNode, MoreNode } = document.components.schemas;
    expect(CommentTreeNode.discriminator.propertyName).toBe("kind");
    expect(CommentTreeNode.oneOf).toEqual([
      { $ref: "#/components/schemas/CommentNode" },
      { $ref: "#/components/schemas/MoreNode" },
    ]);
    expect(CommentNode.properties.data.$ref).toBe("#/components/schemas/Comment");
    expect(MoreNode.properties.data.$ref).toBe("#/components/schemas/MoreStub");
    expect(MoreNode.properties.replies.maxItems).toBe(0);
  });

  it("files every operation under a described tag, with a description, and names a contact and a license", () => {
    const tags = new Set((document.tags as Json[]).map((tag) => tag.name));
    for (const tag of document.tags as Json[]) expect(tag.description, tag.name).toBeTruthy();
    for (const [path, methods] of Object.entries(document.paths) as [string, Json][]) {
      for (const operation of Object.values(methods) as Json[]) {
        expect(operation.tags?.length, path).toBe(1);
        expect(tags.has(operation.tags[0]), path).toBe(true);
        expect(operation.description, path).toBeTruthy();
      }
    }
    const info = buildOpenApiDocument({ portalUrl: "https://portal.example" }).info as Json;
    expect(info.contact.url).toBe("https://portal.example");
    expect(info.license).toMatchObject({ url: "https://portal.example" });
  });

  it("states where they apply the trimmed-page rule, the account's 503 and the 100-id batch cut", () => {
    const op = (path: string) => document.paths[path].get;
    for (const path of ["/v1/posts", "/v1/comments"]) {
      expect(op(path).description).toContain("fewer rows than `limit` while `has_more` is true");
      expect(op(path).description).toContain("first 100");
      const ids = op(path).parameters.find((p: Json) => p.name === "ids");
      expect(ids.description).toContain("only the first 100 are used");
    }
    expect(document.components.schemas.ListServiceMeta.properties.has_more.description).toContain(
      "fewer rows than `limit`",
    );
    expect(document.info.description).toContain("fewer rows than `limit` while `has_more` is true");
    expect(op("/v1/account").description).toContain("503");
    expect(op("/v1/account").responses["503"]).toEqual({
      $ref: "#/components/responses/Error503",
      description: expect.stringContaining("`service_unavailable`"),
    });
  });
});
