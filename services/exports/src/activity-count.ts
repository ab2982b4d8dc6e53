/**
 * How many items a window holds, by the archive's own count (the posts adapter's
 * `adapter.activity.get`, which asks the upstream's aggregate, docs/api.md#activity), for the quote.
 * Asked without `q` only: the archive cannot count our exact-phrase filter, and the pages (what a
 * job is charged for) are cut before that filter anyway. Undefined when the count cannot be had
 * (the aggregate failed, or its adapter did not answer): the quote then samples the window.
 */
import {
  ADAPTER_PROGRESS,
  activitySchema,
  decodeAdapterReply,
  type ExportQuery,
  type Subjects,
} from "@rda/contracts";
import { type NatsConnection, requestWithProgress } from "@rda/service-kit";

export type ActivityCount = (
  query: ExportQuery,
  requestId: string,
  account?: string,
) => Promise<number | undefined>;

export function adapterActivityCount(
  nats: NatsConnection,
  subjects: Subjects,
  timeoutMs: number,
): ActivityCount {
  return async (query, requestId, account) => {
    const params = {
      kind: query.kind,
      ...(query.subreddit === undefined ? {} : { subreddit: query.subreddit }),
      ...(query.author === undefined ? {} : { author: query.author }),
      after: query.after,
      before: query.before,
      // The fewest buckets: only the total is used.
      interval: "week",
    };
    const body = JSON.stringify({ request_id: requestId, params, priority: "interactive", account });
    const reply = await requestWithProgress(nats, subjects.adapter.getActivity, body, {
      timeoutMs,
      silenceMs: ADAPTER_PROGRESS.silenceMs,
    });
    if (!reply.ok) return undefined;
    const frame = decodeAdapterReply(reply.value);
    if (!frame.ok || frame.value.meta.outcome !== "ok") return undefined;
    try {
      const activity = activitySchema.safeParse(
        JSON.parse(Buffer.from(frame.value.data ?? new Uint8Array()).toString("utf8")),
      );
      // `search` (the aggregate failed and the adapter paged the window instead) is exact too: it
      // answers only when it could page every item.
      return activity.success ? activity.data.total : undefined;
    } catch {
      return undefined;
    }
  };
}
