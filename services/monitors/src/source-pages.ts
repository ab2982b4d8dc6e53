/**
 * One page of a source's listing, asked of the adapters over NATS exactly as the gateway asks
 * (the same operation, so the same paging: a page never splits a `created_utc` second), at the
 * `monitors` priority, counted in the share of the account it is read for. Never with `q`: one poll serves every monitor on the source, each matching
 * its own phrase afterwards.
 */
import type { Subjects } from "@rda/contracts";
import { adapterJson, callAdapter, describeAdapterFailure, type NatsConnection } from "@rda/service-kit";
import type { Source } from "./monitor.ts";
import type { ListedItem } from "./monitor-store.ts";

export interface PageQuery {
  readonly after?: number;
  readonly before?: number;
  readonly sort: "asc" | "desc";
  readonly limit: number;
}

export interface SourcePage {
  readonly items: ListedItem[];
  /** The second the next page starts after (asc) or before (desc); null when the page is empty. */
  readonly cursor: number | null;
  readonly has_more: boolean;
}

export class SourcePageFailed extends Error {}

let sequence = 0;

export async function fetchSourcePage(
  nats: NatsConnection,
  subjects: Subjects,
  source: Source,
  query: PageQuery,
  timeoutMs: number,
  account: string,
): Promise<SourcePage> {
  const operation = source.kind === "post" ? "listPosts" : "listComments";
  sequence += 1;
  const answer = await callAdapter(nats, subjects, {
    operation,
    requestId: `monitors-${process.pid}-${Date.now()}-${sequence}`,
    priority: "monitors",
    account,
    params: {
      ...(source.subreddit !== undefined ? { subreddit: source.subreddit } : { author: source.author }),
      ...query,
    },
    timeoutMs,
  });
  if (answer.outcome !== "ok") throw new SourcePageFailed(`${operation}: ${describeAdapterFailure(answer)}`);
  const items = adapterJson(answer);
  if (!Array.isArray(items)) throw new SourcePageFailed(`${operation}: the adapter's data is not a list`);
  return { items: items as ListedItem[], cursor: answer.cursor, has_more: answer.hasMore };
}
