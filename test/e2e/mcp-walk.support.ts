/**
 * One walk of the whole MCP surface, the same for every client (mcp.clients.test.ts): the four
 * listings, a call of every tool, a read of every resource template and of every resource listed,
 * and a get of every prompt. Each step costs what the server's own declarations say, never a number
 * written here: a tool what the server declares it costs (`declaredCredits`: its operation's or its
 * route's credits; a monitor's page only when it holds an item), a started export its pages
 * (EXPORT_PAGE_CREDITS), a template read the tools behind it (RESOURCE_TEMPLATES), a view or a
 * prompt nothing (neither calls the API).
 *
 * The steps come in three phases, each of steps that need nothing from one another: the listings;
 * every call that needs nothing before it; and, once the export is done and the monitor live, the
 * calls that follow them. One at a time, the key's balance in billing's ledger is checked after
 * every step: the balance it started with less the sum so far. A client whose every call is a
 * process of its own (the Inspector's CLI) runs a phase's steps at once, and the balance is checked
 * after each phase. The test then verifies the ledger.
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
  /**
   * How many steps of a phase run at once (default 1). One at a time, the balance is checked after
   * each step; more, after each phase, against the sum of its steps' prices.
   */
  readonly concurrency?: number;
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

/** One step of the walk: it runs, checks what it got, and says what it cost. */
interface Step {
  readonly name: string;
  run(): Promise<number>;
}

/**
 * The running total the key must have paid, checked against billing: after every step when the
 * steps run one at a time, after every phase (the sum of its steps) when they run at once.
 */
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

  /** Steps that need nothing from each other, `concurrency` at a time. */
  async phase(name: string, steps: readonly Step[]): Promise<void> {
    const concurrency = this.setting.concurrency ?? 1;
    if (concurrency === 1) {
      for (const step of steps) await this.expectPaid(step.name, await step.run());
      return;
    }
    const prices = await runPooled(
      steps.map((step) => () => step.run()),
      concurrency,
    );
    await this.expectPaid(
      `${name} (${steps.map((step) => step.name).join(", ")})`,
      prices.reduce((sum, price) => sum + price, 0),
    );
  }
}

/**
 * Runs the tasks at most `limit` at a time. Once one fails no more start, and its failure is thrown
 * after the others running have ended, so no call outlives the walk.
 */
async function runPooled<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length && failures.length === 0) {
      const index = next++;
      try {
        results[index] = await (tasks[index] as () => Promise<T>)();
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return results;
}

/** Walks everything through `client`; returns the credits spent, which billing holds too. */
export async function walkEverything(client: McpSurface, setting: WalkSetting): Promise<number> {
  const { stack, corpus } = setting;
  const ledger = new Ledger(setting, await stack.balanceOf(setting.keyId));
  const listed: { budget?: number; resources?: { uri: string }[] } = {};

  // The listings: every tool, template and prompt the server declares; the views for an Apps host.
  await ledger.phase("the listings", [
    {
      name: "tools/list",
      run: async () => {
        const tools = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
        listed.budget = statedBudget(tools);
        return 0;
      },
    },
    {
      name: "resources/templates/list",
      run: async () => {
        const templates = await client.listResourceTemplates();
        expect(templates.map((template) => template.uriTemplate).sort()).toEqual(
          RESOURCE_TEMPLATES.map((template) => template.uriTemplate).sort(),
        );
        return 0;
      },
    },
    {
      name: "resources/list",
      run: async () => {
        const resources = await client.listResources();
        expect(resources.map((resource) => resource.uri).sort()).toEqual(
          setting.declaresApps ? VIEWS.map((view) => view.uri).sort() : [],
        );
        listed.resources = resources;
        return 0;
      },
    },
    {
      name: "prompts/list",
      run: async () => {
        const prompts = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name).sort()).toEqual(
          PROMPTS.map((prompt) => prompt.listing.name).sort(),
        );
        return 0;
      },
    },
  ]);
  const budget = listed.budget as number;
  const resources = listed.resources ?? [];

  const called = new Set<string>();
  /** One call, answered without error within the budget; returns its structured content and price. */
  const callTool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool(name, args);
    expect(result.isError, `${name} ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(bytesOf(result), name).toBeLessThanOrEqual(budget);
    called.add(name);
    return { content: result.structuredContent ?? {}, price: priceOf(name, result) };
  };
  /** A step of one tool call, with a check of what it answered. */
  const toolStep = (
    name: string,
    args: Record<string, unknown>,
    check: (content: Record<string, unknown>) => void = () => {},
  ): Step => ({
    name,
    run: async () => {
      const { content, price } = await callTool(name, args);
      check(content);
      return price;
    },
  });
  /** A step of one template read, paid as the tools behind it. */
  const templateStep = (template: string, variables: Record<string, string | undefined>): Step => {
    const uri = uriOf(template, variables);
    return {
      name: uri,
      run: async () => {
        const read = await client.readResource(uri);
        expect(
          read.contents.map((content) => content.uri),
          uri,
        ).toEqual([uri]);
        expect(JSON.parse(read.contents[0]?.text ?? "null"), uri).toBeTypeOf("object");
        return templatePrice(template, variables);
      },
    };
  };

  const now = Math.floor(Date.now() / 1000);
  const before = now - 10 * 86_400;
  const window = { kind: "posts", subreddit: corpus.subreddit, after: before - 86_400, before };
  const watched = stack.simulator.corpus.subreddits[0]?.name ?? corpus.subreddit;
  let monitorId = "";
  const promptArgs = promptArguments(corpus);
  const templateReads: [string, Record<string, string | undefined>][] = [
    ["subreddit", { name: corpus.subreddit }],
    ["subreddit_posts", { name: corpus.subreddit, after: String(before - 86_400), before: String(before) }],
    ["thread", { id: corpus.bigPostId }],
    ["user", { name: corpus.author }],
  ];

  // Each data tool once, an export's quote, a monitor with a three-day backfill, every template
  // but the export's, and every prompt: one message naming the tools it asks for, which calls nothing.
  await ledger.phase("the calls that need nothing before them", [
    toolStep("search_posts", { subreddit: corpus.subreddit }),
    toolStep("search_comments", { subreddit: corpus.subreddit }),
    toolStep("get_comment_tree", { post_id: corpus.bigPostId }),
    toolStep("search_subreddits", { q: corpus.subreddit.slice(0, 3) }),
    toolStep("get_subreddit_rules", { name: corpus.subreddit }),
    toolStep("get_user_profile", { name: corpus.author }),
    toolStep("search_users", { author_prefix: corpus.author.slice(0, 3), limit: 5 }),
    toolStep("get_activity", { subreddit: corpus.subreddit, interval: "day", after: now - 7 * 86_400 }),
    toolStep("check_credits", {}),
    toolStep("start_export", window, (quoted) =>
      expect((quoted as { export: { state: string } }).export.state).toBe("quoted"),
    ),
    toolStep(
      "create_monitor",
      { kind: "post", subreddit: watched, interval_seconds: 60, backfill_from: "3d" },
      (created) => {
        monitorId = (created as { monitor: { id: string } }).monitor.id;
      },
    ),
    ...templateReads.map(([template, variables]) => templateStep(template, variables)),
    ...PROMPTS.map(({ listing: { name }, tools }) => ({
      name: `prompt ${name}`,
      run: async () => {
        const args = promptArgs[name];
        if (!args) throw new Error(`the walk has no arguments for the prompt ${name}`);
        const got = await client.getPrompt(name, args);
        expect(got.messages, name).toHaveLength(1);
        for (const tool of tools) expect(JSON.stringify(got.messages), name).toContain(tool);
        return 0;
      },
    })),
  ]);

  // The export over one day of the archive, started and followed to done; its pages are paid.
  const started = await callTool("start_export", { ...window, confirm: true });
  ledger.owe(started.price);
  const exportId = (started.content as { export: { id: string } }).export.id;
  const job = await waitForState(stack, setting.key, exportId, ["done"]);
  expect(job.progress.pages_done).toBeGreaterThan(0);
  expect(job.progress.credits_spent).toBe(job.progress.pages_done * EXPORT_PAGE_CREDITS);
  await ledger.expectPaid(`export ${exportId}'s pages`, job.progress.pages_done * EXPORT_PAGE_CREDITS);
  await waitFor(
    async () => {
      const answer = await call(stack, setting.key, "GET", `/v1/monitors/${monitorId}`);
      return (answer.body.data as { monitor?: { status?: string } } | undefined)?.monitor?.status === "live";
    },
    `monitor ${monitorId}'s backfill`,
    30_000,
  );

  // What follows the export and the live monitor, whose page holds items, so it is paid; the
  // export's template; every resource listed (the views, for an Apps host): pages that call nothing.
  await ledger.phase("the calls that follow the export and the monitor", [
    toolStep("get_export", { id: exportId }, (followed) =>
      expect((followed as { file_url?: string }).file_url).toBe(`/v1/exports/${exportId}/file`),
    ),
    toolStep("list_exports", {}, (exports) =>
      expect((exports as { exports: { id: string }[] }).exports.map((each) => each.id)).toContain(exportId),
    ),
    toolStep("list_monitors", {}, (monitors) =>
      expect((monitors as { monitors: { id: string }[] }).monitors.map((each) => each.id)).toContain(
        monitorId,
      ),
    ),
    toolStep("read_monitor_items", { id: monitorId }, (page) =>
      expect((page as { data: { items: unknown[] } }).data.items.length).toBeGreaterThan(0),
    ),
    templateStep("export", { id: exportId }),
    ...resources.map(({ uri }) => ({
      name: uri,
      run: async () => {
        const read = await client.readResource(uri);
        expect(read.contents[0]?.text, uri).toMatch(/^<!doctype html>/);
        return 0;
      },
    })),
  ]);

  expect([...called].sort()).toEqual([...TOOL_NAMES].sort());
  expect([...templateReads.map(([name]) => name), "export"].sort()).toEqual(
    RESOURCE_TEMPLATES.map((template) => template.name).sort(),
  );
  return ledger.spent;
}
