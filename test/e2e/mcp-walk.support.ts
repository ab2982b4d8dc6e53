/**
 * One walk of the whole MCP surface, the same for every client (mcp.clients.test.ts): the four
 * listings, a call of every tool, a read of every resource template and of every resource listed,
 * and a get of every prompt. Each step costs what the server's own declarations say, never a number
 * written here: a tool what the server declares it costs (`declaredCredits`: its operation's or its
 * route's credits; a monitor's page only when it holds an item), a started export its pages
 * (EXPORT_PAGE_CREDITS), a template read the tools behind it (RESOURCE_TEMPLATES), a view or a
 * prompt nothing (neither calls the API). After every step the key's balance in billing's ledger is
 * the balance it started with less the sum so far; the test then verifies the ledger.
 */
import { UriTemplate } from "@modelcontextprotocol/client";
import { EXPORT_PAGE_CREDITS } from "@rda/contracts";
import { waitFor } from "@rda/service-kit/testing";
import { expect } from "vitest";
import { VIEWS } from "../../services/mcp/src/apps.ts";
import { TOOLS } from "../../services/mcp/src/index.ts";
import { declaredCredits } from "../../services/mcp/src/mcp-server.ts";
import { PROMPTS } from "../../services/mcp/src/prompts.ts";
import { RESOURCE_TEMPLATES } from "../../services/mcp/src/resources.ts";
import { EXPORT_TOOLS } from "../../services/mcp/src/tools/export-tools.ts";
import { MONITOR_TOOLS } from "../../services/mcp/src/tools/monitor-tools.ts";
import {
  bytesOf,
  type CallTool,
  type Corpus,
  statedBudget,
  type ToolResult,
} from "../support/mcp-agent-walk.ts";
import type { Stack } from "../support/stack.ts";
import { call, waitForState } from "./exports.support.ts";

/** What the walk asks of a client; each client test adapts its own API to it. */
export interface McpSurface {
  listTools(): Promise<{ name: string; description?: string }[]>;
  listResourceTemplates(): Promise<{ uriTemplate: string }[]>;
  listResources(): Promise<{ uri: string }[]>;
  listPrompts(): Promise<{ name: string }[]>;
  callTool: CallTool;
  readResource(uri: string): Promise<{ contents: { uri: string; text?: string }[] }>;
  getPrompt(name: string, args: Record<string, string>): Promise<{ messages: unknown[] }>;
}

export interface WalkSetting {
  readonly stack: Stack;
  readonly corpus: Corpus;
  /** The key the client spends, and its id in billing. */
  readonly key: string;
  readonly keyId: string;
  /** The client declares the Apps extension on 2026-07-28, so resources/list names the views. */
  readonly declaresApps: boolean;
}

const RESOURCE_TOOLS = [...EXPORT_TOOLS, ...MONITOR_TOOLS];
const TOOL_NAMES = [...TOOLS.map((tool) => tool.name), ...RESOURCE_TOOLS.map((tool) => tool.name)];

/** What one successful call of `tool` costs, given what it answered. */
function priceOf(tool: string, result: ToolResult): number {
  const declared = declaredCredits(tool);
  if (declared === undefined) throw new Error(`no tool ${tool} is declared`);
  // A page of a monitor's items is charged only when it holds an item (docs/api.md#monitors).
  if (tool === "read_monitor_items") {
    const items = (result.structuredContent as { data?: { items?: unknown[] } }).data?.items ?? [];
    if (items.length === 0) return 0;
  }
  return declared;
}

/** What a read of a template costs: the calls behind it, each at its price. */
function templatePrice(template: string, variables: Record<string, string | undefined>): number {
  const definition = RESOURCE_TEMPLATES.find((known) => known.name === template);
  if (!definition) throw new Error(`no resource template ${template}`);
  return definition.reads(variables).reduce((sum, read) => sum + priceOf(read.tool, {}), 0);
}

function uriOf(template: string, variables: Record<string, string | undefined>): string {
  const definition = RESOURCE_TEMPLATES.find((known) => known.name === template);
  if (!definition) throw new Error(`no resource template ${template}`);
  return new UriTemplate(definition.uriTemplate).expand(
    Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >,
  );
}

/** Every prompt with arguments it accepts (exactly one of subreddit and author for track_topic). */
function promptArguments(corpus: Corpus): Record<string, Record<string, string>> {
  return {
    summarize_thread: { post_id: corpus.bigPostId },
    community_on_topic: { subreddit: corpus.subreddit, topic: "data", after: "30d" },
    community_brief: { subreddit: corpus.subreddit },
    track_topic: { topic: "data", subreddit: corpus.subreddit },
  };
}

/** The running total the key must have paid, checked against billing after every step. */
class Ledger {
  spent = 0;
  constructor(
    private readonly setting: WalkSetting,
    private readonly initial: number,
  ) {}

  /** Counts a step whose charges land later (an export's pages): the next check covers it. */
  owe(credits: number): void {
    this.spent += credits;
  }

  async expectPaid(step: string, credits: number): Promise<void> {
    this.spent += credits;
    const expected = this.initial - this.spent;
    const balance = () => this.setting.stack.balanceOf(this.setting.keyId);
    // A debit settles as its call answers; the wait only lets a slow settle land before the check.
    await waitFor(async () => (await balance()) === expected, `the balance after ${step}`, 5_000).catch(
      () => undefined,
    );
    expect(await balance(), `the key's balance after ${step}`).toBe(expected);
  }
}

/** Walks everything through `client`; returns the credits spent, which billing holds too. */
export async function walkEverything(client: McpSurface, setting: WalkSetting): Promise<number> {
  const { stack, corpus } = setting;
  const ledger = new Ledger(setting, await stack.balanceOf(setting.keyId));

  // The listings: every tool, template and prompt the server declares; the views for an Apps host.
  const tools = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
  const budget = statedBudget(tools);
  const templates = await client.listResourceTemplates();
  expect(templates.map((template) => template.uriTemplate).sort()).toEqual(
    RESOURCE_TEMPLATES.map((template) => template.uriTemplate).sort(),
  );
  const resources = await client.listResources();
  expect(resources.map((resource) => resource.uri).sort()).toEqual(
    setting.declaresApps ? VIEWS.map((view) => view.uri).sort() : [],
  );
  const prompts = await client.listPrompts();
  expect(prompts.map((prompt) => prompt.name).sort()).toEqual(
    PROMPTS.map((prompt) => prompt.listing.name).sort(),
  );
  await ledger.expectPaid("the listings", 0);

  const called = new Set<string>();
  /** One call; `startsWork`: it starts a job that goes on charging, checked once the job ends. */
  const callTool = async (name: string, args: Record<string, unknown>, startsWork = false) => {
    const result = await client.callTool(name, args);
    expect(result.isError, `${name} ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(bytesOf(result), name).toBeLessThanOrEqual(budget);
    called.add(name);
    if (startsWork) ledger.owe(priceOf(name, result));
    else await ledger.expectPaid(name, priceOf(name, result));
    return result.structuredContent ?? {};
  };

  // The data tools, each once.
  const now = Math.floor(Date.now() / 1000);
  await callTool("search_posts", { subreddit: corpus.subreddit });
  await callTool("search_comments", { subreddit: corpus.subreddit });
  await callTool("get_comment_tree", { post_id: corpus.bigPostId });
  await callTool("search_subreddits", { q: corpus.subreddit.slice(0, 3) });
  await callTool("get_subreddit_rules", { name: corpus.subreddit });
  await callTool("get_user_profile", { name: corpus.author });
  await callTool("search_users", { author_prefix: corpus.author.slice(0, 3), limit: 5 });
  await callTool("get_activity", { subreddit: corpus.subreddit, interval: "day", after: now - 7 * 86_400 });
  await callTool("check_credits", {});

  // An export over one day of the archive: quoted, started, followed to done; its pages are paid.
  const before = now - 10 * 86_400;
  const window = { kind: "posts", subreddit: corpus.subreddit, after: before - 86_400, before };
  const quoted = (await callTool("start_export", window)) as { export: { state: string } };
  expect(quoted.export.state).toBe("quoted");
  const started = (await callTool("start_export", { ...window, confirm: true }, true)) as {
    export: { id: string };
  };
  const exportId = started.export.id;
  const job = await waitForState(stack, setting.key, exportId, ["done"]);
  expect(job.progress.pages_done).toBeGreaterThan(0);
  expect(job.progress.credits_spent).toBe(job.progress.pages_done * EXPORT_PAGE_CREDITS);
  await ledger.expectPaid(`export ${exportId}'s pages`, job.progress.pages_done * EXPORT_PAGE_CREDITS);
  const followed = (await callTool("get_export", { id: exportId })) as { file_url?: string };
  expect(followed.file_url).toBe(`/v1/exports/${exportId}/file`);
  const listed = (await callTool("list_exports", {})) as { exports: { id: string }[] };
  expect(listed.exports.map((each) => each.id)).toContain(exportId);

  // A monitor with a three-day backfill, read once it is live: that page holds items, so it is paid.
  const watched = stack.simulator.corpus.subreddits[0]?.name ?? corpus.subreddit;
  const created = (await callTool("create_monitor", {
    kind: "post",
    subreddit: watched,
    interval_seconds: 60,
    backfill_from: "3d",
  })) as { monitor: { id: string } };
  const monitorId = created.monitor.id;
  await waitFor(
    async () => {
      const answer = await call(stack, setting.key, "GET", `/v1/monitors/${monitorId}`);
      return (answer.body.data as { monitor?: { status?: string } } | undefined)?.monitor?.status === "live";
    },
    `monitor ${monitorId}'s backfill`,
    30_000,
  );
  const monitors = (await callTool("list_monitors", {})) as { monitors: { id: string }[] };
  expect(monitors.monitors.map((each) => each.id)).toContain(monitorId);
  const page = (await callTool("read_monitor_items", { id: monitorId })) as { data: { items: unknown[] } };
  expect(page.data.items.length).toBeGreaterThan(0);

  expect([...called].sort()).toEqual([...TOOL_NAMES].sort());

  // Every template, read once with the corpus's names and the export above.
  const templateReads: [string, Record<string, string | undefined>][] = [
    ["subreddit", { name: corpus.subreddit }],
    ["subreddit_posts", { name: corpus.subreddit, after: String(before - 86_400), before: String(before) }],
    ["thread", { id: corpus.bigPostId }],
    ["user", { name: corpus.author }],
    ["export", { id: exportId }],
  ];
  expect(templateReads.map(([name]) => name).sort()).toEqual(
    RESOURCE_TEMPLATES.map((template) => template.name).sort(),
  );
  for (const [template, variables] of templateReads) {
    const uri = uriOf(template, variables);
    const read = await client.readResource(uri);
    expect(
      read.contents.map((content) => content.uri),
      uri,
    ).toEqual([uri]);
    expect(JSON.parse(read.contents[0]?.text ?? "null"), uri).toBeTypeOf("object");
    await ledger.expectPaid(uri, templatePrice(template, variables));
  }
  // Every resource listed (the views, for an Apps host): pages that call nothing.
  for (const { uri } of resources) {
    const read = await client.readResource(uri);
    expect(read.contents[0]?.text, uri).toMatch(/^<!doctype html>/);
    await ledger.expectPaid(uri, 0);
  }

  // Every prompt: one message naming the tools it asks for; getting it calls nothing.
  const promptArgs = promptArguments(corpus);
  for (const prompt of PROMPTS) {
    const { name } = prompt.listing;
    const args = promptArgs[name];
    if (!args) throw new Error(`the walk has no arguments for the prompt ${name}`);
    const got = await client.getPrompt(name, args);
    expect(got.messages, name).toHaveLength(1);
    for (const tool of prompt.tools) expect(JSON.stringify(got.messages), name).toContain(tool);
    await ledger.expectPaid(`prompt ${name}`, 0);
  }
  return ledger.spent;
}
