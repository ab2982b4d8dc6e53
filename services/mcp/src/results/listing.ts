/**
 * search_posts and search_comments results: lean items, and when there is more, `next` holds the
 * arguments of the call that returns it.
 *
 * A cut for the budget falls between two created_utc seconds, so the usual cursor (the last shown
 * row's created_utc as an exclusive bound) loses nothing: the API never splits a second across pages
 * either. Only when every shown row shares the second of the first row left out can no cursor reach
 * the rest; then `next` fetches those rows by id.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { MAX_IDS_PER_BATCH } from "@rda/contracts";
import { DEFAULT_FIELDS, type ItemKind, project, selectedFields } from "./fields.ts";
import {
  assemble,
  count,
  cutSentence,
  itemsWithinBudget,
  type Presentation,
  type Service,
} from "./presentation.ts";

type Item = Record<string, unknown>;
type Args = Record<string, unknown>;

export function presentListing(
  kind: ItemKind,
  tool: string,
  envelope: { data: Item[]; _service: Service },
  args: Args,
  budgetBytes: number,
): CallToolResult {
  const fields = selectedFields(DEFAULT_FIELDS[kind], args.fields as string[] | undefined);
  const items = envelope.data.map((item) => project(item, fields));
  const build = (shown: number) =>
    assemble(tool, describe(kind, items, shown, args, envelope._service, budgetBytes), envelope._service);
  const shown = itemsWithinBudget(items.length, build, budgetBytes);
  if (shown === items.length || args.ids !== undefined) return build(shown);
  const boundary = secondBoundary(items, shown);
  return build(boundary > 0 ? boundary : shown);
}

function describe(
  kind: ItemKind,
  items: Item[],
  shown: number,
  args: Args,
  service: Service,
  budgetBytes: number,
): Presentation {
  const noun = kind;
  const data = items.slice(0, shown);
  const summary =
    args.ids !== undefined ? batchSummary(noun, shown, args) : listingSummary(noun, shown, args);
  if (shown === items.length) {
    const cursor = service.cursor;
    const more = service.has_more === true && typeof cursor === "number";
    return { data, summary, ...(more ? { next: movedBound(args, cursor) } : {}) };
  }
  const cut = cutSentence(budgetBytes, shown, items.length, `${noun}s`);
  const rest = items.slice(shown);
  if (args.ids !== undefined) {
    const next = { ...batchArgs(args), ids: idsOf(rest) };
    return { data, summary, next, truncated: `${cut} \`next\` fetches the other ${rest.length} by id.` };
  }
  const last = data.at(-1)?.created_utc;
  if (rest[0]?.created_utc !== last && typeof last === "number") {
    const next = movedBound(args, last);
    return { data, summary, next, truncated: cut, service: { cursor: last, has_more: true } };
  }
  return {
    data,
    summary,
    next: { ...batchArgs(args), ids: idsOf(rest) },
    truncated: `${cut} The rest of this page shares one created_utc second, which no cursor can split: \`next\` fetches it by id; after that, continue the listing with ${boundName(args)}=${service.cursor}.`,
  };
}

/** The largest count ≤ shown after which the next row starts a new second; 0 when there is none. */
function secondBoundary(items: Item[], shown: number): number {
  let count = shown;
  while (count > 0 && items[count - 1]?.created_utc === items[count]?.created_utc) count -= 1;
  return count;
}

function listingSummary(noun: string, shown: number, args: Args): string {
  const scope = [
    args.subreddit !== undefined ? ` in r/${args.subreddit}` : "",
    args.author !== undefined ? ` by u/${args.author}` : "",
    args.link_id !== undefined ? ` under post ${args.link_id}` : "",
    args.parent_id === "" ? " (top level only)" : "",
    typeof args.parent_id === "string" && args.parent_id !== "" ? ` replying to ${args.parent_id}` : "",
    args.q !== undefined ? ` matching "${args.q}"` : "",
  ].join("");
  return `${count(shown, noun)}${scope}, ${args.sort === "asc" ? "oldest" : "newest"} first.`;
}

function batchSummary(noun: string, shown: number, args: Args): string {
  const asked = String(args.ids).split(",").length;
  return `${shown} of the ${count(asked, noun)} asked for by id (unknown ids return nothing).`;
}

/** The same arguments with the cursor as the exclusive bound in the paging direction. */
function movedBound(args: Args, cursor: number): Args {
  return { ...listingArgs(args), [boundName(args)]: String(cursor) };
}

function boundName(args: Args): "after" | "before" {
  return args.sort === "asc" ? "after" : "before";
}

/** The call's arguments as a model would send them: time bounds as text, defaults spelled out. */
function listingArgs(args: Args): Args {
  const out: Args = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    out[name] = name === "after" || name === "before" ? String(value) : value;
  }
  return out;
}

/** Batch mode ignores the listing arguments, so `next` carries only what it uses. */
function batchArgs(args: Args): Args {
  return args.fields === undefined ? {} : { fields: args.fields };
}

function idsOf(items: Item[]): string {
  return items
    .slice(0, MAX_IDS_PER_BATCH)
    .map((item) => String(item.id))
    .join(",");
}
