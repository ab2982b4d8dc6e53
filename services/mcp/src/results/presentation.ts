/**
 * A successful tool result, assembled once: `structuredContent` carries the data (the API's envelope
 * with lean items, plus `next` and `truncated` when there is more), and the one text block is a short
 * summary for people and for clients that show only text. The JSON is never repeated in the text:
 * clients that read structuredContent give it to the model, so a copy would only double the bytes.
 *
 * Results are kept within a byte budget by cutting whole items (binary search on how many fit); an
 * item is never split, so a single item larger than the budget comes alone.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";

export interface Presentation {
  data: unknown;
  /** What the result holds, in a sentence or two. */
  summary: string;
  /** The arguments that make this same tool return what follows; absent when nothing follows. */
  next?: Record<string, unknown>;
  /** Present when the budget cut the result: how much was left out. */
  truncated?: string;
  /** A sentence on how to read the data, when it has something unusual (collapsed stubs). */
  note?: string;
  /** What `_service` says differently from the API's envelope (has_more and cursor after a cut). */
  service?: Record<string, unknown>;
}

export type Service = Record<string, unknown> & { credits_used: number; credits_remaining: number };

export function assemble(tool: string, presentation: Presentation, service: Service): CallToolResult {
  const { data, summary, next, truncated, note } = presentation;
  const structured: Record<string, unknown> = { data, _service: { ...service, ...presentation.service } };
  if (truncated !== undefined) structured.truncated = truncated;
  if (next !== undefined) structured.next = next;
  const text = [
    summary,
    charged(service),
    truncated,
    note,
    next && `More: call ${tool} with ${JSON.stringify(next)}.`,
  ];
  return {
    structuredContent: structured,
    content: [{ type: "text", text: text.filter((part) => part !== undefined && part !== "").join(" ") }],
  };
}

/** Builds the result showing the first n items, for the largest n within the budget (at least 1). */
export function fitToBudget(
  total: number,
  build: (shown: number) => CallToolResult,
  budgetBytes: number,
): CallToolResult {
  return build(itemsWithinBudget(total, build, budgetBytes));
}

/** The largest n whose result fits, found by bisection: a result grows with the items it shows. */
export function itemsWithinBudget(
  total: number,
  build: (shown: number) => CallToolResult,
  budgetBytes: number,
): number {
  if (total <= 1 || bytesOf(build(total)) <= budgetBytes) return total;
  let fits = 1;
  let over = total;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (bytesOf(build(middle)) <= budgetBytes) fits = middle;
    else over = middle;
  }
  return fits;
}

/** The size the budget is counted in: the whole result as JSON, structured content and text. */
export function bytesOf(result: CallToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

export function cutSentence(budgetBytes: number, shown: number, total: number, noun: string): string {
  return `Cut to stay within ${budgetBytes} bytes: ${shown} of ${total} ${noun} shown.`;
}

/** "1 comment", "2 comments". */
export function count(amount: number, noun: string, plural = `${noun}s`): string {
  return `${amount} ${amount === 1 ? noun : plural}`;
}

function charged(service: Service): string {
  return `Charged ${count(service.credits_used, "credit")}; ${service.credits_remaining} remaining.`;
}
