/**
 * The Apps extension (`io.modelcontextprotocol/ui`, SEP-1865; docs/api.md#mcp-endpoint-views): three
 * views, each a `ui://` resource of one self-contained HTML page, linked from the tools whose results
 * they show: get_activity's chart, get_comment_tree's thread viewer, and an export's progress.
 *
 * Only a client that declares the extension on a request (2026-07-28: in the request's `_meta`
 * capabilities, with the Apps MIME type) sees the views: in `resources/list`, and as the tools'
 * `_meta.ui.resourceUri`. Every other client gets today's listing and results, unchanged; the tool
 * results are the same for both, the view renders the structured content a host hands it. A 2025
 * client declares capabilities only in `initialize`, which a stateless server cannot remember for
 * later requests, so it gets no views.
 *
 * Reading a view is free (no call to the gateway). A page holds its script and style inline, fetches
 * nothing, and talks to its host only through the Apps protocol (postMessage JSON-RPC): its metadata
 * declares no domain of any kind, and the page's own CSP allows exactly its inline script and style.
 * The pages sit in `views/` beside this file (copied into `dist/` by the build).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpUiResourceMeta } from "@modelcontextprotocol/ext-apps";
import {
  EXTENSION_ID,
  getUiCapability,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps/server";
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ReadResourceResult,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/server";

export const APPS_EXTENSION = EXTENSION_ID;

const VIEWS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), "views");

interface ViewDefinition {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The view's own script in views/, run after the shared bridge. */
  readonly script: string;
  /** The tools whose results this view shows. */
  readonly tools: readonly string[];
}

export const VIEWS: readonly ViewDefinition[] = [
  {
    uri: "ui://reddit-data-api/activity-chart.html",
    name: "activity_chart",
    title: "Activity chart",
    description:
      "get_activity as a bar chart, one bar per bucket; buckets less than 36 h old (settled: false) are hatched on a shaded band. Free to read.",
    script: "activity-chart.js",
    tools: ["get_activity"],
  },
  {
    uri: "ui://reddit-data-api/comment-thread.html",
    name: "comment_thread",
    title: "Thread viewer",
    description:
      "get_comment_tree as a collapsible thread: each comment's score, author and depth, linked to its permalink. Free to read.",
    script: "comment-thread.js",
    tools: ["get_comment_tree"],
  },
  {
    uri: "ui://reddit-data-api/export-progress.html",
    name: "export_progress",
    title: "Export progress",
    description:
      "start_export and get_export as a progress view: state, pages done, rows, credits spent and, once done, the file. Follows a running export with get_export (free) when the host relays tool calls. Free to read.",
    script: "export-progress.js",
    tools: ["start_export", "get_export"],
  },
];

/**
 * The views need no origin at all: no connections, no fetched scripts, styles, images or fonts, no
 * frames, no base URI. An empty list is the extension's way of saying none (its secure default),
 * spelled out so a host reviewing the listing sees it.
 */
export const VIEW_UI_META: McpUiResourceMeta = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/** Whether this 2026-07-28 request's client declares the Apps extension with its MIME type. */
export function declaresApps(envelope: Record<string, unknown> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return getUiCapability(capabilities)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

const VIEW_OF_TOOL = new Map(VIEWS.flatMap((view) => view.tools.map((tool) => [tool, view.uri] as const)));

/**
 * The tool listing for a client that declares the extension: each tool with a view names it in
 * `_meta.ui.resourceUri`, and under the older flat key (`ui/resourceUri`) that earlier hosts read.
 */
export function linkViews(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) => {
    const uri = VIEW_OF_TOOL.get(tool.name);
    if (!uri) return tool;
    return { ...tool, _meta: { ...tool._meta, ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri } };
  });
}

/** The views as `resources/list` entries, with their CSP and MIME type. */
export function viewListing(): Resource[] {
  return VIEWS.map(({ uri, name, title, description }) => ({
    uri,
    name,
    title,
    description,
    mimeType: RESOURCE_MIME_TYPE,
    _meta: { ui: VIEW_UI_META },
  }));
}

/** A view's page, or undefined when `uri` names none. Reading one costs nothing. */
export function readView(uri: string): ReadResourceResult | undefined {
  const view = VIEWS.find((known) => known.uri === uri);
  if (!view) return undefined;
  return {
    contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: pageOf(view), _meta: { ui: VIEW_UI_META } }],
  };
}

const pages = new Map<string, string>();

/** A view's HTML, composed once per process from views/: the shared style and bridge, then its script. */
function pageOf(view: ViewDefinition): string {
  const cached = pages.get(view.uri);
  if (cached) return cached;
  const style = readFileSync(join(VIEWS_FOLDER, "views.css"), "utf8");
  const script = [readViewFile("bridge.js"), readViewFile(view.script)].join("\n");
  const page = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${pagePolicy(style, script)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${view.title}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
    '<main id="view" aria-live="polite"><p class="waiting">Waiting for the tool’s result…</p></main>',
    `<script>${script}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
  pages.set(view.uri, page);
  return page;
}

function readViewFile(name: string): string {
  const text = readFileSync(join(VIEWS_FOLDER, name), "utf8");
  // Inline, a closing tag in the script would end it early; the views never write one.
  if (/<\/script/i.test(text)) throw new Error(`views/${name} contains </script>`);
  return text;
}

/**
 * The page's own policy, on top of whatever the host enforces from the metadata: nothing from
 * anywhere, except this very inline script and style (by hash) and images written as data: URIs.
 */
function pagePolicy(style: string, script: string): string {
  return [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(style)}'`,
    "img-src data:",
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}
