/**
 * The MCP Apps views (docs/api.md#mcp-endpoint-views) as a host shows them. The whole stack and the
 * exports service run; the v2 client, declaring the Apps extension on 2026-07-28, finds each tool's
 * view, reads its page over real MCP and makes the real tool call. A minimal host in Chromium then
 * renders the page in a sandboxed iframe (`sandbox="allow-scripts"`, the metadata's CSP on top) and
 * speaks the Apps protocol from the host side: it answers ui/initialize, sends the tool's arguments
 * and result once the view says it is initialized, opens links on ui/open-link, and relays the
 * view's tools/call to the server. Every message the view sends is checked against the extension's
 * own JSON Schema.
 *
 * Checked: the chart has one bar per bucket with exactly the unsettled ones marked; the thread
 * viewer collapses and expands a subtree and opens a permalink through the host; the export view
 * follows an export to done with its pages, rows and credits. Every network request from the
 * browser is intercepted, blocked and counted: none is made. Reading the views costs nothing, and
 * clients without the extension see neither the views nor the links. Screenshots land in
 * test-artifacts/mcp-apps/.
 */
import { createRequire } from "node:module";
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import {
  Client as ModernClientClass,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { type Browser, chromium, type Frame, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectMcpClient, connectModernClient } from "../../services/mcp/test/support/mcp-client.ts";
import { CorpusProbe } from "../../services/upstream-sim/src/index.ts";
import { type ExportsBeside, startExportsBeside, verifyLedger } from "../e2e/exports.support.ts";
import { CHROMIUM, CHROMIUM_ARGS, screenshotter } from "../support/browser.ts";
import { type Corpus, pickCorpus } from "../support/mcp-agent-walk.ts";
import { type Stack, startStack } from "../support/stack.ts";

const APPS = "io.modelcontextprotocol/ui";
const APP_MIME = "text/html;profile=mcp-app";

/** The extension's published JSON Schema for its messages, from the package the server depends on. */
const requireFromMcp = createRequire(new URL("../../services/mcp/package.json", import.meta.url));
const appsSchema = requireFromMcp("@modelcontextprotocol/ext-apps/schema.json") as {
  $defs: Record<string, object>;
};
const ajv = new Ajv2020({ strict: false });
const MESSAGE_SCHEMAS: Record<string, string> = {
  "ui/initialize": "McpUiInitializeRequest",
  "ui/notifications/initialized": "McpUiInitializedNotification",
  "ui/notifications/size-changed": "McpUiSizeChangedNotification",
  "ui/open-link": "McpUiOpenLinkRequest",
};

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: unknown[];
}
interface ViewMessage {
  jsonrpc: string;
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
}
interface UiMeta {
  csp?: Record<string, string[]>;
}

let stack: Stack;
let exportsService: ExportsBeside;
let host: ModernClient;
let keyId: string;
let corpus: Corpus;
let browser: Browser;
let page: Page;
/** Every request the browser tried to make while a view was shown (all blocked). */
let requests: string[];
const shoot = screenshotter("mcp-apps");

beforeAll(async () => {
  stack = await startStack();
  exportsService = await startExportsBeside(stack, {
    pagesPerSecond: 4,
    ackWaitMs: 2_000,
    pageRetryMs: 200,
    balanceRetryMs: 500,
  });
  corpus = pickCorpus(stack);
  const created = await stack.createKey({ credits: 1_000 });
  keyId = created.id;
  host = new ModernClientClass(
    { name: "rda-test-host", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { extensions: { [APPS]: { mimeTypes: [APP_MIME] } } },
    },
  );
  await host.connect(
    new ModernTransport(new URL(`${stack.gatewayUrl}/mcp`), {
      requestInit: { headers: { "x-api-key": created.key } },
    }),
  );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium gives a sandboxed iframe a process of its own, where Playwright's interception
    // attaches late: a fetch of the second frame mounted in a page was seen to slip past it.
    // In the page's process the interception sees every request (the harness's own test checks).
    args: [...CHROMIUM_ARGS, "--disable-features=IsolateSandboxedIframes"],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await exportsService?.stop();
  await stack?.stop();
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 760, height: 1400 } });
  requests = [];
  // Nothing may leave: every request is counted and refused, whichever frame makes it.
  await page.route("**/*", (route) => {
    requests.push(route.request().url());
    return route.abort("blockedbyclient");
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) requests.push(`csp: ${message.text()}`);
  });
  // A view's tools/call goes to the server over real MCP, as a host relays it.
  await page.exposeFunction("callServerTool", (name: string, args: Record<string, unknown>) =>
    host.callTool({ name, arguments: args }),
  );
  await page.setContent(HOST_PAGE);
});
afterEach(async () => {
  const sent = await page.evaluate(() => (globalThis as unknown as { viewSent: ViewMessage[] }).viewSent);
  for (const message of sent) expectValidMessage(message);
  await page.close();
  expect(requests).toEqual([]);
});

/** Each message the view sent follows the extension's schema for its method. */
function expectValidMessage(message: ViewMessage) {
  expect(message.jsonrpc).toBe("2.0");
  if (message.method === undefined) return;
  const schemaName = MESSAGE_SCHEMAS[message.method];
  if (schemaName === undefined) return;
  const validate = ajv.compile(appsSchema.$defs[schemaName] as object);
  const { jsonrpc: _jsonrpc, id: _id, ...body } = message;
  expect(validate(body), `${message.method}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

/** The tool's view as the host finds it: the listing's link, then the page read over MCP. */
async function viewOf(tool: string) {
  const { tools } = await host.listTools();
  const listed = tools.find((candidate) => candidate.name === tool);
  const uri = (listed?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  expect(uri, `${tool} links a view`).toMatch(/^ui:\/\//);
  const read = await host.readResource({ uri: uri as string });
  const [content] = read.contents as {
    uri: string;
    mimeType: string;
    text: string;
    _meta?: { ui?: UiMeta };
  }[];
  expect(content?.mimeType).toBe(APP_MIME);
  return { uri: uri as string, html: content?.text ?? "", ui: content?._meta?.ui ?? {} };
}

/** Shows the view in the host page's sandboxed iframe and hands it the call's arguments and result. */
async function show(tool: string, args: Record<string, unknown>, result: ToolResult): Promise<Frame> {
  const view = await viewOf(tool);
  await page.evaluate(
    ([html, ui, toolArgs, toolResult]) =>
      (globalThis as unknown as { mountView: (...values: unknown[]) => void }).mountView(
        html,
        ui,
        toolArgs,
        toolResult,
      ),
    [view.html, view.ui, args, result] as const,
  );
  await page.waitForFunction(() => (globalThis as unknown as { viewInitialized: boolean }).viewInitialized);
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  if (!frame) throw new Error("the view's frame is missing");
  return frame;
}

function structured(result: ToolResult): Record<string, unknown> {
  return result.structuredContent ?? {};
}

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = (await host.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result;
}

describe("the host harness", () => {
  it("catches a page that reaches out: refused by the metadata's CSP, or blocked and counted when the CSP would let it through", async () => {
    const reaching = `<!doctype html><html><head></head><body><script>
      fetch("https://api.example.com/leak").catch(() => undefined);
      window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*");
    </script></body></html>`;
    const mount = (ui: UiMeta) =>
      page.evaluate(
        ([html, meta]) =>
          (globalThis as unknown as { mountView: (...values: unknown[]) => void }).mountView(
            html,
            meta,
            {},
            {},
          ),
        [reaching, ui] as const,
      );
    await mount({});
    const refused = (entry: string) => entry.startsWith("csp:") && entry.includes("api.example.com/leak");
    await expect.poll(() => requests.some(refused)).toBe(true);
    expect(requests.filter((entry) => !entry.startsWith("csp:"))).toEqual([]);
    await mount({ csp: { connectDomains: ["https://api.example.com"] } });
    await expect
      .poll(() => requests.filter((entry) => entry === "https://api.example.com/leak").length)
      .toBe(1);
    // Caught as it should be; the views' own tests must see none of this.
    requests = [];
    await page.evaluate(() => {
      (globalThis as unknown as { viewSent: unknown[] }).viewSent = [];
    });
  });
});

describe("views for a host that declares the Apps extension", () => {
  it("links a view from get_activity, get_comment_tree, start_export and get_export, lists the three with a CSP allowing no origin, and reads them for free", async () => {
    const { tools } = await host.listTools();
    const linked = Object.fromEntries(
      tools
        .filter((tool) => tool._meta?.ui !== undefined)
        .map((tool) => [tool.name, ((tool._meta?.ui ?? {}) as { resourceUri: string }).resourceUri]),
    );
    expect(Object.keys(linked).sort()).toEqual([
      "get_activity",
      "get_comment_tree",
      "get_export",
      "start_export",
    ]);
    expect(linked.start_export).toBe(linked.get_export);
    const toolMeta = ajv.compile(appsSchema.$defs.McpUiToolMeta as object);
    for (const tool of tools.filter((candidate) => candidate._meta?.ui)) {
      expect(toolMeta(tool._meta?.ui)).toBe(true);
    }

    const { resources } = await host.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(
      [...new Set(Object.values(linked))].sort(),
    );
    const resourceMeta = ajv.compile(appsSchema.$defs.McpUiResourceMeta as object);
    const before = await stack.balanceOf(keyId);
    for (const resource of resources) {
      expect(resource.mimeType).toBe(APP_MIME);
      const read = await host.readResource({ uri: resource.uri });
      const [content] = read.contents as { text: string; _meta?: { ui?: UiMeta } }[];
      const ui = content?._meta?.ui;
      expect(resourceMeta(ui)).toBe(true);
      expect(ui?.csp).toEqual({
        connectDomains: [],
        resourceDomains: [],
        frameDomains: [],
        baseUriDomains: [],
      });
      // Self-contained: the page names no other document, script, style, image or font to load.
      expect(content?.text).not.toMatch(/<(link|img|iframe|object|embed)\b|\bsrc=|@import|url\(http/i);
      expect(content?.text).toMatch(/http-equiv="Content-Security-Policy" content="default-src 'none'/);
    }
    expect(await stack.balanceOf(keyId)).toBe(before);
  });

  it("charts get_activity: one bar per bucket, the unsettled ones hatched on a shaded band", async () => {
    const args = { subreddit: corpus.subreddit, kind: "comments", interval: "day", after: "10d" };
    const result = await call("get_activity", args);
    const buckets = (structured(result).data as { buckets: { count: number; settled: boolean }[] }).buckets;
    const unsettled = buckets.filter((bucket) => !bucket.settled).length;
    expect(unsettled).toBeGreaterThan(0);
    expect(unsettled).toBeLessThan(buckets.length);

    const frame = await show("get_activity", args, result);
    const bars = frame.locator("svg.chart g.bucket");
    await expect.poll(() => bars.count()).toBe(buckets.length);
    const drawn = await bars.evaluateAll((groups) =>
      groups.map((group) => ({
        count: Number(group.getAttribute("data-count")),
        settled: group.getAttribute("data-settled") === "true",
        // As painted: the computed fill, whatever set it.
        hatched: (globalThis as unknown as { getComputedStyle: (element: unknown) => { fill: string } })
          .getComputedStyle(group.querySelector("rect"))
          .fill.includes("unsettled-hatch"),
        height: Number(group.querySelector("rect")?.getAttribute("height")),
      })),
    );
    expect(drawn.map(({ count, settled }) => ({ count, settled }))).toEqual(
      buckets.map(({ count, settled }) => ({ count, settled })),
    );
    expect(drawn.filter((bar) => bar.hatched)).toHaveLength(unsettled);
    expect(drawn.every((bar) => bar.hatched === !bar.settled)).toBe(true);
    // Heights follow the counts: the tallest bar is a bucket with the highest count.
    const tallest = drawn.reduce((top, bar) => (bar.height > top.height ? bar : top));
    expect(tallest.count).toBe(Math.max(...buckets.map((bucket) => bucket.count)));
    expect(await frame.locator(".unsettled-band").count()).toBe(1);
    await expect.poll(() => frame.locator(".legend").textContent()).toContain("not settled");
    await shoot(page, "activity-chart");
  });

  it("shows get_comment_tree as a thread that collapses and expands a subtree, each comment linked to its permalink", async () => {
    // A thread small enough to come whole (limit 500), so its replies nest as deep as they go.
    const post = new CorpusProbe(stack.simulator.corpus)
      .posts({ subreddit: corpus.subreddit, minComments: 15 }, 500)
      .find((candidate) => candidate.comment_count <= 60);
    if (!post) throw new Error("no thread of 15 to 60 comments in the corpus");
    const args = { post_id: post.id, limit: 500 };
    const result = await call("get_comment_tree", args);
    const frame = await show("get_comment_tree", args, result);
    const comments = frame.locator("li.comment");
    await expect.poll(() => comments.count()).toBeGreaterThan(0);

    // The top-level comment with the largest subtree: its score, author and depth as the result gives them.
    type Node = { kind: string; data: Record<string, unknown>; replies: Node[] };
    const size = (node: Node): number => node.replies.reduce((sum, reply) => sum + 1 + size(reply), 0);
    const roots = structured(result).data as Node[];
    const parent = roots
      .filter((node) => node.kind === "t1")
      .reduce<Node | undefined>((best, node) => (best && size(best) >= size(node) ? best : node), undefined);
    if (!parent || size(parent) < 2) throw new Error("no top-level comment with a subtree in the thread");
    const item = frame.locator(`li.comment[data-id="${parent.data.id}"]`);
    const meta = item.locator(":scope > .meta");
    const score = Number(parent.data.score);
    expect(await meta.locator(".score").textContent()).toBe(
      `${score} point${Math.abs(score) === 1 ? "" : "s"}`,
    );
    expect(await meta.locator(".author").textContent()).toBe(`u/${parent.data.author}`);
    expect(await meta.locator(".depth").textContent()).toBe("depth 0");
    expect(await item.locator(":scope > .replies > li").first().getAttribute("data-depth")).toBe("1");

    const visible = () => frame.locator("li.node:visible").count();
    const everything = await visible();
    const below = await item.locator(":scope > .replies li.node").count();
    expect(below).toBe(size(parent));
    const toggle = meta.locator(".toggle");
    await shoot(page, "comment-thread-expanded");

    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await expect.poll(visible).toBe(everything - below);
    expect(await item.locator(":scope > .collapsed-note").isVisible()).toBe(true);
    await shoot(page, "comment-thread-collapsed");

    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(visible).toBe(everything);

    // Every comment links its permalink; a click asks the host to open it (the view never navigates).
    const links = await frame
      .locator("li.comment > .meta > a.permalink")
      .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute("href")));
    expect(links).toHaveLength(await comments.count());
    expect(links.every((href) => href?.startsWith("https://www.reddit.com/r/"))).toBe(true);
    await meta.locator("a.permalink").click();
    const opened = await page.waitForFunction(
      () => (globalThis as unknown as { openedLinks: string[] }).openedLinks[0],
    );
    expect(await opened.jsonValue()).toBe(`https://www.reddit.com${parent.data.permalink}`);
  });

  it("follows a started export to done through the host's relayed get_export: pages, rows, credits and state", async () => {
    const before = Math.floor(Date.now() / 1000) - 10 * 86_400;
    const args = {
      kind: "posts",
      subreddit: corpus.subreddit,
      after: before - 30 * 86_400,
      before,
      confirm: true,
    };
    const balance = await stack.balanceOf(keyId);
    const started = await call("start_export", args);
    const job = structured(started).export as { id: string; state: string };
    expect(job.state).not.toBe("done");

    const frame = await show("start_export", args, started);
    const state = frame.locator("[data-state]");
    await expect.poll(() => state.getAttribute("data-state")).toMatch(/^(queued|running)$/);
    await shoot(page, "export-progress-running");

    await expect
      .poll(() => state.getAttribute("data-state"), { timeout: 60_000, interval: 500 })
      .toBe("done");
    const done = await call("get_export", { id: job.id });
    const { progress, quote } = structured(done).export as {
      progress: { pages_done: number; rows_done: number; credits_spent: number };
      quote: { estimated_pages: number; estimated_rows: number; ceiling_credits: number };
    };
    const field = (name: string) => frame.locator(`dd[data-field="${name}"]`).textContent();
    expect(await field("pages")).toBe(`${progress.pages_done} of about ${quote.estimated_pages}`);
    expect(await field("rows")).toBe(`${progress.rows_done} of about ${quote.estimated_rows}`);
    expect(await field("credits")).toBe(`${progress.credits_spent} spent, at most ${quote.ceiling_credits}`);
    expect(await field("download")).toContain(`/v1/exports/${job.id}`);
    expect(
      await frame.locator("progress").evaluate((bar) => (bar as unknown as { value: number }).value),
    ).toBe(100);
    // The view's polls were free: the key paid the export's pages and nothing else.
    expect(balance - (await stack.balanceOf(keyId))).toBe(progress.credits_spent);
    const relayed = await page.evaluate(() => (globalThis as unknown as { relayed: number }).relayed);
    expect(relayed).toBeGreaterThan(0);
    await shoot(page, "export-progress-done");
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  });
});

describe("clients without the Apps extension", () => {
  it("see no view and no link, on 2026-07-28 and on 2025-11-25, and get the same results", async () => {
    const { key } = await stack.createKey({ credits: 100 });
    const modern = await connectModernClient(`${stack.gatewayUrl}/mcp`, key);
    const legacy = await connectMcpClient(`${stack.gatewayUrl}/mcp`, key);
    try {
      for (const client of [modern, legacy]) {
        const { tools } = await client.listTools();
        expect(
          tools.filter((tool) => tool._meta?.ui !== undefined || tool._meta?.["ui/resourceUri"]),
        ).toEqual([]);
        expect((await client.listResources()).resources).toEqual([]);
      }
      // A fixed window: a relative one ("30d") read a second apart is a window a second apart.
      const today = new Date().toISOString().slice(0, 10);
      const monthAgo = new Date(Date.parse(today) - 30 * 86_400_000).toISOString().slice(0, 10);
      const args = {
        subreddit: corpus.subreddit,
        kind: "posts",
        interval: "week",
        after: monthAgo,
        before: today,
      };
      const plain = await modern.callTool({ name: "get_activity", arguments: args });
      const withApps = await host.callTool({ name: "get_activity", arguments: args });
      const data = (result: unknown) =>
        (result as { structuredContent?: { data?: unknown } }).structuredContent?.data;
      expect(data(plain)).toEqual(data(withApps));
      expect(plain.content).toHaveLength((withApps.content as unknown[]).length);
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});

/**
 * The host: a page holding the view's iframe, speaking the Apps protocol over postMessage. It adds
 * the CSP the metadata asks for (no origin of any kind) before the page's own, as a host enforces it.
 */
const HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test host</title>
<style>body{margin:0;padding:12px;font:14px sans-serif;background:#eef0f3}
iframe{width:720px;border:1px solid #c4c8ce;border-radius:8px;background:#fff;height:120px}</style></head>
<body><h1>Test host</h1><div id="slot"></div>
<script>
window.viewSent = [];
window.openedLinks = [];
window.relayed = 0;
window.viewInitialized = false;
let frame;
let toolArgs;
let toolResult;

function policyOf(ui) {
  const csp = (ui && ui.csp) || {};
  const list = (domains, none) => (domains && domains.length ? domains.join(" ") : none);
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + list(csp.resourceDomains, ""),
    "style-src 'unsafe-inline' " + list(csp.resourceDomains, ""),
    "img-src data: " + list(csp.resourceDomains, ""),
    "font-src " + list(csp.resourceDomains, "'none'"),
    "connect-src " + list(csp.connectDomains, "'none'"),
    "frame-src " + list(csp.frameDomains, "'none'"),
    "base-uri " + list(csp.baseUriDomains, "'none'"),
  ].join("; ");
}

function send(message) {
  frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
}

window.mountView = (html, ui, args, result) => {
  toolArgs = args;
  toolResult = result;
  frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = "MCP view";
  const policy = '<meta http-equiv="Content-Security-Policy" content="' + policyOf(ui) + '">';
  frame.srcdoc = html.replace("<head>", "<head>" + policy);
  document.getElementById("slot").replaceChildren(frame);
};

window.addEventListener("message", async (event) => {
  if (!frame || event.source !== frame.contentWindow) return;
  const message = event.data;
  window.viewSent.push(message);
  switch (message.method) {
    case "ui/initialize":
      send({ id: message.id, result: {
        protocolVersion: message.params.protocolVersion,
        hostInfo: { name: "rda-test-host", version: "1.0.0" },
        hostCapabilities: { openLinks: {}, serverTools: {} },
        hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"] },
      } });
      return;
    case "ui/notifications/initialized":
      send({ method: "ui/notifications/tool-input", params: { arguments: toolArgs } });
      send({ method: "ui/notifications/tool-result", params: toolResult });
      window.viewInitialized = true;
      return;
    case "ui/notifications/size-changed":
      if (message.params.height) frame.style.height = message.params.height + "px";
      return;
    case "ui/open-link":
      window.openedLinks.push(message.params.url);
      send({ id: message.id, result: {} });
      return;
    case "tools/call":
      window.relayed += 1;
      send({ id: message.id, result: await window.callServerTool(message.params.name, message.params.arguments || {}) });
      return;
    default:
      if (message.id !== undefined && message.method !== undefined)
        send({ id: message.id, error: { code: -32601, message: "Method not found" } });
  }
});
</script></body></html>`;
