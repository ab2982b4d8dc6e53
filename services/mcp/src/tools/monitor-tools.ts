/**
 * The monitor tools, `create_monitor`, `list_monitors` and `read_monitor_items`
 * (docs/api.md#monitors), billed as the HTTP API bills them: managing is free, and a read costs
 * 1 credit only when it returns at least one item. A read stays within the result budget: its page
 * is asked no larger than the budget holds (`limit`), and the items' texts are shortened until the
 * page fits, never dropped, because the page's cursor moves past every item on it.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  createdMonitorSchema,
  createMonitorSchema,
  DEFAULT_MONITOR_LIMITS,
  MONITOR_DELIVERY_CREDITS,
  MONITOR_ID_PATTERN,
  MONITOR_PAGE_ITEMS,
  monitorItemsPageSchema,
  monitorListSchema,
  publicRoute,
} from "@rda/contracts";
import type { GatewayError, GatewayResult, ResourceAnswer } from "@rda/sdk";
import { z } from "zod";
import { DEFAULT_FIELDS, project } from "../results/fields.ts";
import { assemble, bytesOf, count } from "../results/presentation.ts";
import { describeGatewayError, errorResult } from "../results/tool-errors.ts";
import { type ResourceTool, resourceListing } from "./resource-tool.ts";

const MONITOR_ID = MONITOR_ID_PATTERN;
const monitorId = z
  .string()
  .regex(MONITOR_ID, { error: "must be a monitor id as create_monitor returned it" });

/**
 * Bytes a lean item takes at most with its texts cut to nothing (ids, names, permalink), and what the
 * result's own fields take: how many items a page may ask for and still fit the budget.
 */
const LEAN_ITEM_BYTES = 400;
const RESULT_OVERHEAD_BYTES = 1_500;

/** The most items one read asks for, for a server whose results fit `budgetBytes`. */
export function readLimitFor(budgetBytes: number): number {
  const fits = Math.floor((budgetBytes - RESULT_OVERHEAD_BYTES) / LEAN_ITEM_BYTES);
  return Math.max(1, Math.min(MONITOR_PAGE_ITEMS, fits));
}

// The API's own schemas: what the tool accepts is exactly what POST /v1/monitors accepts, and it
// answers a monitor, a list or a page of items in the API's shapes (a page's items in their lean form).
const createInput = createMonitorSchema(DEFAULT_MONITOR_LIMITS);
const listInput = z.strictObject({});
const readInput = z.strictObject({
  id: monitorId,
  cursor: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "The `cursor` of the previous read; omitted: from the monitor's first item." }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MONITOR_PAGE_ITEMS)
    .optional()
    .meta({ description: "The most items to return; at most what the result budget holds (the default)." }),
});

/** The API's refusal in words an agent can act on; a monitor of another key is simply unknown. */
function failure(error: GatewayError): CallToolResult {
  if (error.status === 404)
    return errorResult(
      "No such monitor for this API key (resource_not_found). Nothing was charged; list_monitors shows the key's monitors, free.",
      error,
    );
  const text = describeGatewayError(error);
  if (error.status !== 402) return errorResult(text, error);
  return errorResult(
    `${text} The monitor keeps collecting meanwhile: the same read, with the same cursor, continues where it stopped.`,
    error,
  );
}

function statusLine(monitor: Record<string, unknown>): string {
  const where = monitor.subreddit !== undefined ? `r/${monitor.subreddit}` : `u/${monitor.author}`;
  const phrase = typeof monitor.phrase === "string" ? ` matching "${monitor.phrase}"` : "";
  return `${monitor.id}: ${monitor.kind}s of ${where}${phrase}, ${monitor.status}`;
}

export const createMonitor: ResourceTool = {
  name: "create_monitor",
  route: publicRoute("createMonitor"),
  input: createInput,
  listing: resourceListing(
    "create_monitor",
    "Create a monitor",
    `Free. Watches a community's or an author's new posts or comments, optionally only those holding a phrase, every interval_seconds (at least ${DEFAULT_MONITOR_LIMITS.minIntervalSeconds}); with backfill_from it first collects the matches since then, oldest first. Returns the monitor and its backfill's estimated pages and most credits. An account holds at most ${DEFAULT_MONITOR_LIMITS.maxMonitorsPerAccount} monitors. Read what it collects with read_monitor_items.`,
    createInput,
    createdMonitorSchema,
    { readOnly: false, idempotent: false },
  ),
  // Checked by the same schema the service uses; a relative backfill_from arrives as epoch seconds.
  run: async (client, args, call) => {
    const answer = await client.createMonitor(args as Parameters<typeof client.createMonitor>[0], call);
    if (!answer.ok) return failure(answer.error);
    const { monitor, backfill_estimate } = answer.value.data;
    const estimate =
      backfill_estimate.max_credits === null
        ? "Its backfill could not be estimated now."
        : `Its backfill is about ${count(backfill_estimate.upstream_pages ?? 0, "upstream page")}, at most ${count(backfill_estimate.max_credits, "credit")} to read.`;
    const text = `Created monitor ${statusLine(monitor)}. Nothing was charged. ${estimate} Read its items with read_monitor_items({"id":"${monitor.id}"}); ${MONITOR_DELIVERY_CREDITS} credit per read that returns items.`;
    return { content: [{ type: "text", text }], structuredContent: answer.value.data };
  },
};

export const listMonitors: ResourceTool = {
  name: "list_monitors",
  route: publicRoute("listMonitors"),
  input: listInput,
  listing: resourceListing(
    "list_monitors",
    "List monitors",
    "Free. The monitors of this API key, oldest first, each with its status (backfilling, live, paused, paused_for_credits when the key cannot pay for a read: it keeps collecting, and reads continue after a top-up, or revoked when its key was revoked: stopped for good), and the account's limit.",
    listInput,
    monitorListSchema,
    { readOnly: true, idempotent: true },
  ),
  run: async (client, _args, call) => {
    const answer = await client.listMonitors(call);
    if (!answer.ok) return failure(answer.error);
    const { monitors, limit, limit_used } = answer.value.data;
    const lines = monitors.map((monitor) => statusLine(monitor));
    const used = limit_used === undefined ? "" : ` The account holds ${limit_used} of ${limit}.`;
    const text = `${count(monitors.length, "monitor")} on this key.${used} Nothing was charged.${lines.length > 0 ? `\n${lines.join("\n")}` : ""}`;
    return { content: [{ type: "text", text }], structuredContent: answer.value.data };
  },
};

export const readMonitorItems: ResourceTool = {
  name: "read_monitor_items",
  route: publicRoute("pullMonitorItems"),
  input: readInput,
  listing: resourceListing(
    "read_monitor_items",
    "Read a monitor's items",
    `The items a monitor collected after \`cursor\`, in the order it found them. ${MONITOR_DELIVERY_CREDITS} credit when it returns at least one item; a read that finds nothing new is free. Pass the returned cursor to the next read (\`next\` holds its arguments). Long texts are shortened to fit the result; search_posts or search_comments with ids returns them whole.`,
    readInput,
    z.object({
      // A page as the API answers it, each item in its lean form, named by its id.
      data: monitorItemsPageSchema.extend({ items: z.array(z.looseObject({ id: z.string() })) }),
      _service: z.looseObject({ credits_used: z.number(), credits_remaining: z.number() }),
    }),
    { readOnly: true, idempotent: false },
  ),
  run: async (client, args, call, budgetBytes) => {
    const id = String(args.id);
    const limit = Math.min(Number(args.limit ?? MONITOR_PAGE_ITEMS), readLimitFor(budgetBytes));
    const cursor = typeof args.cursor === "string" ? args.cursor : null;
    const answer = await client.pullMonitorItems(id, { ...call, cursor, limit });
    return presentItems(answer, id, limit, budgetBytes);
  },
};

type Page = ResourceAnswer<{ items: unknown[]; cursor: string | null }>;

function presentItems(answer: GatewayResult<Page>, id: string, limit: number, budgetBytes: number) {
  if (!answer.ok) return failure(answer.error);
  const { data, _service } = answer.value;
  const items = data.items.map(lean);
  const next = { id, ...(data.cursor !== null ? { cursor: data.cursor } : {}) };
  const summary =
    items.length === 0
      ? "No new items yet; nothing was charged. Read again later with the same cursor."
      : `${count(items.length, "item")} from monitor ${id}, oldest first${items.length === limit ? "; more may follow" : ""}.`;
  const build = (textChars: number) => {
    const shown = items.map((item) => shorten(item, textChars));
    const cut = textChars < Number.POSITIVE_INFINITY && items.some((item, index) => item !== shown[index]);
    return assemble(
      "read_monitor_items",
      {
        data: { items: shown, cursor: data.cursor },
        summary,
        next,
        ...(cut
          ? {
              truncated: `Texts shortened to ${textChars} characters to stay within ${budgetBytes} bytes; every item is shown.`,
            }
          : {}),
      },
      { ..._service },
    );
  };
  return build(longestTextThatFits(build, budgetBytes));
}

const TEXT_FIELDS = ["title", "body"] as const;

function lean(raw: unknown): Record<string, unknown> {
  const item = (raw ?? {}) as Record<string, unknown>;
  return project(item, "title" in item ? DEFAULT_FIELDS.post : DEFAULT_FIELDS.comment);
}

function shorten(item: Record<string, unknown>, chars: number): Record<string, unknown> {
  let out = item;
  for (const field of TEXT_FIELDS) {
    const text = item[field];
    if (typeof text === "string" && text.length > chars)
      out = { ...out, [field]: `${text.slice(0, chars)}…` };
  }
  return out;
}

/** Infinity when the whole texts fit; else the most characters per text that do (bisection). */
function longestTextThatFits(build: (chars: number) => CallToolResult, budgetBytes: number): number {
  if (bytesOf(build(Number.POSITIVE_INFINITY)) <= budgetBytes) return Number.POSITIVE_INFINITY;
  let fits = 0;
  let over = 40_000;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (bytesOf(build(middle)) <= budgetBytes) fits = middle;
    else over = middle;
  }
  return fits;
}

export const MONITOR_TOOLS: readonly ResourceTool[] = [createMonitor, listMonitors, readMonitorItems];
