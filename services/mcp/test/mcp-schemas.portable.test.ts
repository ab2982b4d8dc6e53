/**
 * Every tool's input and output schema, as tools/list hands them to a client, follows the rules of
 * the three model APIs a client may pass them to, and is valid strict JSON Schema 2020-12.
 *
 * What this checks, and what it does not: the rules below are the ones those vendors publish or
 * answer with when they refuse a schema (their error texts are quoted); the test checks the schemas
 * against the rules statically. It does not call the vendors, so a rule a vendor adds later is not
 * covered until it is written here. services/mcp/README.md lists the same rules.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { OPERATIONS } from "@rda/contracts";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentOverFakeGateway, startAgentOverFakeGateway } from "./support/mcp-client.ts";

type Schema = { [key: string]: unknown };

/** Gemini function declarations take this subset of OpenAPI's Schema object, and refuse other keys
 * ("Invalid JSON payload received. Unknown name "additionalProperties" … Cannot find field."). */
const GEMINI_SCHEMA_FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "minimum",
  "maximum",
]);
/** Gemini's Type enum (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL), one per schema. */
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
/** OpenAI and Anthropic: a function's name; Gemini also wants a letter or underscore first. */
const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
/** Gemini: "Parameter names must start with a letter or an underscore and must only contain chars
 * a-z, A-Z, 0-9, or underscores with a maximum length of 64." */
const PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

interface Finding {
  at: string;
  rule: string;
}

/** Walks a schema and reports every node that breaks a rule. */
function findings(schema: Schema, topLevelMayBeEmpty: boolean): Finding[] {
  const found: Finding[] = [];
  const note = (at: string, rule: string) => found.push({ at, rule });

  if (schema.type !== "object") note("#", "OpenAI, Anthropic, Gemini: the top level is type object");
  for (const combinator of ["anyOf", "oneOf", "allOf", "not", "enum"]) {
    if (combinator in schema) {
      note(
        "#",
        `OpenAI, Anthropic: no ${combinator} at the top level ("input_schema does not support oneOf, allOf, or anyOf at the top level")`,
      );
    }
  }

  const visit = (node: Schema, at: string, isTop: boolean) => {
    for (const key of Object.keys(node)) {
      if (!GEMINI_SCHEMA_FIELDS.has(key)) note(at, `Gemini: unknown schema field '${key}'`);
    }
    if ("type" in node && (typeof node.type !== "string" || !GEMINI_TYPES.has(node.type))) {
      note(
        at,
        `Gemini: one type per schema ("Proto field is not repeating, cannot start list"), got ${JSON.stringify(node.type)}`,
      );
    }
    if (!("type" in node) && !("anyOf" in node)) note(at, "every vendor: a schema says its type");
    if (node.type === "array" && !("items" in node)) note(at, 'OpenAI: "array schema missing items"');
    if (
      "enum" in node &&
      (node.type !== "string" || !(node.enum as unknown[]).every((v) => typeof v === "string"))
    ) {
      note(at, "Gemini: enum values are strings, on a string");
    }
    if ("format" in node && node.format !== "enum" && node.format !== "date-time") {
      note(at, "Gemini (Developer API): format is only enum or date-time");
    }
    const properties = (node.properties ?? {}) as Record<string, Schema>;
    if (node.type === "object" && Object.keys(properties).length === 0 && !(isTop && topLevelMayBeEmpty)) {
      note(at, 'Gemini: "properties: should be non-empty for OBJECT type"');
    }
    for (const [name, child] of Object.entries(properties)) {
      if (!PARAMETER_NAME.test(name))
        note(`${at}/${name}`, "Gemini: parameter name of letters, digits, underscores");
      visit(child, `${at}/${name}`, false);
    }
    if (node.items) visit(node.items as Schema, `${at}/items`, false);
    for (const [i, option] of ((node.anyOf ?? []) as Schema[]).entries())
      visit(option, `${at}/anyOf/${i}`, false);
  };
  visit(schema, "#", true);
  return found;
}

let fixture: AgentOverFakeGateway;
let agent: Client;
let tools: Tool[];
const KEY = `rdk_${"g".repeat(43)}`;

beforeAll(async () => {
  fixture = await startAgentOverFakeGateway({ [KEY]: 10 }, KEY);
  agent = fixture.agent;
  tools = (await agent.listTools()).tools;
});
afterAll(async () => fixture.close());

describe("the tools' schemas, as clients receive them", () => {
  it("are fifteen (nine data tools, three export tools, three monitor tools), each with an input and an output schema", () => {
    expect(tools).toHaveLength(15);
    for (const tool of tools) expect(tool.outputSchema).toBeDefined();
  });

  it("have names every vendor accepts", () => {
    for (const tool of tools) expect(tool.name).toMatch(TOOL_NAME);
  });

  it("follow the OpenAI, Anthropic and Gemini schema rules, inputs and outputs alike", () => {
    const report: Record<string, Finding[]> = {};
    for (const tool of tools) {
      // A tool without parameters is declared without them to Gemini, so its empty input is fine.
      const inputFindings = findings(tool.inputSchema as Schema, true);
      const outputFindings = findings(tool.outputSchema as Schema, false);
      if (inputFindings.length > 0) report[`${tool.name} input`] = inputFindings;
      if (outputFindings.length > 0) report[`${tool.name} output`] = outputFindings;
    }
    expect(report).toEqual({});
  });

  it("would refuse the schemas zod writes by default (draft-07, type lists, additionalProperties)", () => {
    const zodDefault = z.toJSONSchema(OPERATIONS.listPosts.params, {
      target: "draft-7",
      io: "input",
    }) as Schema;
    const rules = findings(zodDefault, false).map((finding) => finding.rule);
    expect(rules).toEqual(
      expect.arrayContaining([
        "Gemini: unknown schema field '$schema'",
        "Gemini: unknown schema field 'additionalProperties'",
        expect.stringMatching(/^Gemini: one type per schema/),
      ]),
    );
  });

  it("carry no $schema, so the protocol's default dialect, 2020-12, applies", () => {
    for (const tool of tools) {
      expect(tool.inputSchema).not.toHaveProperty("$schema");
      expect(tool.outputSchema).not.toHaveProperty("$schema");
    }
  });

  it("compile under a strict JSON Schema 2020-12 validator", () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: true, strictRequired: true, allErrors: true });
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), `${tool.name} input`).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema as Schema), `${tool.name} output`).not.toThrow();
    }
  });

  it("declare the time bounds as one type, string, which a number also satisfies on the wire", async () => {
    const posts = tools.find((tool) => tool.name === "search_posts")?.inputSchema.properties ?? {};
    expect(posts.after).toMatchObject({ type: "string" });
    expect(posts.before).toMatchObject({ type: "string" });
    const asNumber = await agent.callTool({
      name: "search_posts",
      arguments: { subreddit: "abc", before: 1_700_000_000 },
    });
    expect(asNumber.isError).toBeFalsy();
  });

  it("describe the arguments a valid call sends, by the advertised schema alone", () => {
    const ajv = new Ajv2020({ strict: true });
    const examples: Record<string, Schema> = {
      search_posts: {
        subreddit: "AskReddit",
        limit: 10,
        fields: ["selftext"],
        before: "1700000000",
        over_18: false,
        link_flair_text: "Question",
      },
      search_comments: { link_id: "t3_abc", parent_id: "" },
      get_comment_tree: { post_id: "t3_abc", limit: 500, resume_after: "xyz" },
      search_subreddits: { q: "r/Ask" },
      get_subreddit_rules: { name: "r/AskReddit" },
      get_user_profile: { name: "some_user" },
      search_users: { author_prefix: "spez", min_karma: 100, sort_type: "name", offset: 25 },
      get_activity: { subreddit: "AskReddit", q: "new phone", interval: "day", after: "7d" },
      check_credits: {},
      start_export: {
        kind: "posts",
        subreddit: "AskReddit",
        after: "30d",
        before: 1_700_000_000,
        format: "csv",
      },
      get_export: { id: `exp_${"a".repeat(24)}` },
      list_exports: {},
      create_monitor: { kind: "post", subreddit: "AskReddit", phrase: "new phone", backfill_from: "30d" },
      list_monitors: {},
      read_monitor_items: { id: `mon_${"a".repeat(24)}`, cursor: "1700000000000-0", limit: 20 },
    };
    for (const tool of tools) {
      const valid = ajv.validate(tool.inputSchema, examples[tool.name]);
      expect(valid, `${tool.name}: ${ajv.errorsText()}`).toBe(true);
    }
  });
});
