/**
 * One page of a source's listing, asked of the adapters over NATS exactly as the gateway asks
 * (the same operation, so the same paging: a page never splits a `created_utc` second), at the
 * `monitors` priority, counted in the share of the account it is read for. Never with `q`: one poll serves every monitor on the source, each matching
 * its own phrase afterwards.
 */
import { ADAPTER_PROGRESS, decodeAdapterReply, type Subjects } from "@rda/contracts";
import { type NatsConnection, requestWithProgress } from "@rda/service-kit";
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
  const subject = source.kind === "post" ? subjects.adapter.listPosts : subjects.adapter.listComments;
  sequence += 1;
  const request = {
    request_id: `monitors-${process.pid}-${Date.now()}-${sequence}`,
    priority: "monitors",
    account,
    params: {
      ...(source.subreddit !== undefined ? { subreddit: source.subreddit } : { author: source.author }),
      ...query,
    },
  };
  const answer = await requestWithProgress(nats, subject, JSON.stringify(request), {
    timeoutMs,
    silenceMs: ADAPTER_PROGRESS.silenceMs,
  });
  if (!answer.ok) throw new SourcePageFailed(`${subject}: ${answer.error.kind}`);
  const reply = decodeAdapterReply(answer.value);
  if (!reply.ok) throw new SourcePageFailed(reply.error);
  const { meta, data } = reply.value;
  if (meta.outcome !== "ok") throw new SourcePageFailed(`${subject}: ${meta.outcome}: ${meta.message}`);
  const items = JSON.parse(new TextDecoder().decode(data)) as ListedItem[];
  return { items, cursor: meta.cursor ?? null, has_more: meta.has_more ?? false };
}
