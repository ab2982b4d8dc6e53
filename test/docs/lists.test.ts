/**
 * The lists, limits and defaults the README and docs/api.md state are checked against their
 * sources, so a change to one fails here until the other follows: the README's operator CLI list
 * against the CLI's own command table, the MCP tables against what MCP serves (every tool at its
 * declared price, every template with the calls a read makes and their sum, every prompt with the
 * tools it asks for, every view with the tools it is linked from), the Limits
 * table's `limit` rows against the parameter schemas, the README's environment defaults against
 * docs/operations.md, and no table repeats its header.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  getCommentTreeParamsSchema,
  listCommentsParamsSchema,
  listPostsParamsSchema,
  searchSubredditsParamsSchema,
} from "@rda/contracts";
import { describe, expect, it } from "vitest";

import { USAGE } from "../../services/billing/src/cli/args.ts";
import { VIEWS } from "../../services/mcp/src/apps.ts";
import { TOOLS } from "../../services/mcp/src/index.ts";
import { declaredCredits } from "../../services/mcp/src/mcp-server.ts";
import { PROMPTS } from "../../services/mcp/src/prompts.ts";
import { RESOURCE_TEMPLATES } from "../../services/mcp/src/resources.ts";
import { EXPORT_TOOLS } from "../../services/mcp/src/tools/export-tools.ts";
import { MONITOR_TOOLS } from "../../services/mcp/src/tools/monitor-tools.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const API = readFileSync(join(ROOT, "docs", "api.md"), "utf8");

/** The cells of a markdown table row. */
const cells = (row: string) =>
  row
    .split("|")
    .slice(1, -1)
    .map((cell) => cell.trim());

/** The rows of the first table after `heading` (a line of the document), header and rule left out. */
function tableAfter(markdown: string, heading: RegExp): string[][] {
  const start = markdown.search(heading);
  expect(start, `${heading} in the document`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const table = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith("|")) break;
    table.push(line);
  }
  return table.slice(2).map(cells);
}

describe("the README's operator CLI list", () => {
  it("names every command of the CLI's table, with its synopsis, and no other", () => {
    const fromCli = [...USAGE.matchAll(/^ {2}((?:keys|ledger) [a-z]+) (.*)$/gm)].map(
      ([, name, synopsis]) => `${name} ${synopsis}`,
    );
    const fromReadme = [...README.matchAll(/^pnpm admin ((?:keys|ledger) [a-z]+ .*?)\s*$/gm)]
      .map(([, line]) => line as string)
      .filter((line) => !line.includes("--help"));
    expect(fromCli.length).toBeGreaterThan(5);
    expect(fromReadme.sort()).toEqual(fromCli.sort());
  });
});

/** What one successful call of an MCP tool costs, as the server declares it. */
function declaredPrice(tool: string): number {
  const credits = declaredCredits(tool);
  if (credits === undefined) throw new Error(`no MCP tool ${tool}`);
  return credits;
}

/** The names a cell quotes in backticks. */
const quoted = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map(([, name]) => name);

describe("the MCP tables in docs/api.md", () => {
  it("list every tool MCP serves, once, at the price it declares, and no other", () => {
    const served = [...TOOLS, ...EXPORT_TOOLS, ...MONITOR_TOOLS].map((tool) => tool.name);
    const rows = tableAfter(API, /^### MCP endpoint$/m).filter((row) => /^`[a-z_]+`$/.test(row[0] ?? ""));
    const documented = rows.map((row) => (row[0] as string).replace(/`/g, ""));
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.sort()).toEqual(served.sort());
    // The cost column starts with the price of one call (an export's pages and a monitor's page
    // holding an item are said in words after it).
    for (const [tool, , cost] of rows) {
      const name = (tool as string).replace(/`/g, "");
      expect(Number(/^\d+/.exec(cost ?? "")?.[0]), `${name}'s cost`).toBe(declaredPrice(name));
    }
  });

  it("list every resource template with the calls a read makes and what they cost together", () => {
    const rows = tableAfter(API, /^#### MCP endpoint: resources$/m);
    expect(rows.map(([template]) => quoted(template)[0]).sort()).toEqual(
      RESOURCE_TEMPLATES.map((template) => template.uriTemplate).sort(),
    );
    for (const [template, , calls, cost] of rows) {
      const uriTemplate = quoted(template)[0];
      const definition = RESOURCE_TEMPLATES.find((known) => known.uriTemplate === uriTemplate);
      const tools = definition?.reads({}).map((read) => read.tool) ?? [];
      expect(quoted(calls), uriTemplate).toEqual(tools);
      expect(Number(cost), uriTemplate).toBe(tools.reduce((sum, tool) => sum + declaredPrice(tool), 0));
    }
  });

  it("list every prompt with every tool it asks the model to call", () => {
    const rows = tableAfter(API, /^#### MCP endpoint: prompts$/m);
    expect(rows.map(([prompt]) => quoted(prompt)[0]).sort()).toEqual(
      PROMPTS.map((prompt) => prompt.listing.name).sort(),
    );
    for (const [prompt, , tools] of rows) {
      const declared = PROMPTS.find((known) => known.listing.name === quoted(prompt)[0]);
      expect(quoted(tools).filter((name) => name !== "next")).toEqual(declared?.tools);
    }
  });

  it("list every view with the tools it is linked from", () => {
    const rows = tableAfter(API, /^#### MCP endpoint: views$/m);
    expect(rows.map(([view]) => quoted(view)[0]).sort()).toEqual(VIEWS.map((view) => view.uri).sort());
    for (const [view, linkedFrom] of rows) {
      const declared = VIEWS.find((known) => known.uri === quoted(view)[0]);
      expect(quoted(linkedFrom)).toEqual(declared?.tools);
    }
  });
});

describe("the Limits table in docs/api.md", () => {
  const SCHEMAS: Record<
    string,
    {
      schema: { safeParse(value: unknown): { success: boolean; data?: unknown } };
      base: Record<string, unknown>;
    }[]
  > = {
    "posts, comments": [
      { schema: listPostsParamsSchema, base: { subreddit: "AskHistorians" } },
      { schema: listCommentsParamsSchema, base: { subreddit: "AskHistorians" } },
    ],
    "comment tree": [{ schema: getCommentTreeParamsSchema, base: { post_id: "abc123" } }],
    "subreddit search": [{ schema: searchSubredditsParamsSchema, base: { q: "ask" } }],
  };

  it("states each `limit` range and default as the parameter schemas enforce them", () => {
    const rows = tableAfter(API, /^## Limits$/m).filter((row) => (row[0] ?? "").startsWith("`limit`"));
    expect(rows.map((row) => row[2])).toEqual(Object.keys(SCHEMAS));
    for (const [, value, appliesTo] of rows) {
      const match = /^1 to (\d+), default (\d+)$/.exec(value ?? "");
      expect(match, `'${value}' reads "1 to N, default D"`).not.toBeNull();
      const [, most, byDefault] = match as RegExpExecArray;
      for (const { schema, base } of SCHEMAS[appliesTo as string] ?? []) {
        const parse = (limit?: number) =>
          schema.safeParse({ ...base, ...(limit === undefined ? {} : { limit }) });
        expect(parse(Number(most)).success, `${appliesTo}: limit=${most}`).toBe(true);
        expect(parse(Number(most) + 1).success, `${appliesTo}: limit=${most}+1`).toBe(false);
        expect(parse(0).success).toBe(false);
        const defaulted = parse();
        expect(defaulted.success).toBe(true);
        expect((defaulted.data as { limit: number }).limit, `${appliesTo}: default`).toBe(Number(byDefault));
      }
    }
  });
});

describe("defaults in the README", () => {
  // Defaults live once, in docs/settings.md, generated from the schemas (its own test keeps it fresh):
  // the README links there instead of keeping a copy that could drift.
  it("keeps no table of environment variables of its own, and links to the generated one", () => {
    const variableRows = README.split("\n").filter((line) => /^\|\s*`[A-Z][A-Z0-9_]+`/.test(line));
    expect(variableRows).toEqual([]);
    expect(README).toContain("docs/settings.md");
  });
});

describe("tables in docs/api.md", () => {
  it("never repeat their header row", () => {
    const lines = API.split("\n");
    // A table's rule line (|---|) is its second line: the line two above it is not in the table.
    const rules = lines.flatMap((line, i) => (/^\|\s*:?-{3,}/.test(line) ? [i] : []));
    expect(rules.length).toBeGreaterThan(10);
    expect(rules.filter((i) => lines[i - 2]?.startsWith("|")).map((i) => lines[i - 1])).toEqual([]);
  });
});
