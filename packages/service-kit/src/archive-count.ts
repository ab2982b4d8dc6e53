/**
 * How many items a window holds, by the archive's own count (the posts adapter's
 * `adapter.activity.get`, which asks the upstream's aggregate, docs/api.md#activity), and the pages
 * paging it takes. Export quotes and monitor backfill estimates are both made this way, so the two
 * agree. Asked without `q` only: the archive cannot count our exact-phrase filter, and pages (what
 * is charged) are cut before that filter anyway. When the count cannot be had (the aggregate
 * failed, or its adapter did not answer) the caller estimates another way, and says so; when a
 * budget refused it (ours or the upstream's, nothing sent), the caller is told which, since any
 * other way of estimating would read the archive more and be refused the same.
 */
import { activitySchema, err, ok, type Result, type Subjects } from "@rda/contracts";
import { adapterJson, callAdapter } from "./adapter-caller.ts";
import type { NatsConnection } from "./nats.ts";

export interface CountedWindow {
  readonly kind: "posts" | "comments";
  readonly subreddit?: string;
  readonly author?: string;
  readonly after: number;
  readonly before: number;
}

/** Why there is no count: `refusedBy` is set when a budget refused it, nothing sent. */
export interface CountFailure {
  /** `ours`: our shared upstream budget had no turn in time; `upstream`: the upstream's own limit. */
  readonly refusedBy?: "ours" | "upstream";
  /** With `refusedBy`: when to ask again, in seconds. */
  readonly retryAfterSeconds?: number;
}

/** `account` is whose fair share of the upstream budget the count is taken from (docs/upstream.md). */
export type ArchiveCount = (
  window: CountedWindow,
  requestId: string,
  account?: string,
) => Promise<Result<number, CountFailure>>;

export function adapterArchiveCount(
  nats: NatsConnection,
  subjects: Subjects,
  timeoutMs: number,
): ArchiveCount {
  return async (window, requestId, account) => {
    const params = {
      kind: window.kind,
      ...(window.subreddit === undefined ? {} : { subreddit: window.subreddit }),
      ...(window.author === undefined ? {} : { author: window.author }),
      after: window.after,
      before: window.before,
      // The fewest buckets: only the total is used.
      interval: "week",
    };
    const answer = await callAdapter(nats, subjects, {
      operation: "getActivity",
      requestId,
      params,
      priority: "interactive",
      account,
      timeoutMs,
    });
    if (answer.outcome === "budget_spent" || answer.outcome === "rate_limited") {
      const refusedBy = answer.outcome === "budget_spent" ? "ours" : "upstream";
      return err({ refusedBy, retryAfterSeconds: answer.retryAfterSeconds });
    }
    if (answer.outcome !== "ok") return err({});
    const activity = activitySchema.safeParse(adapterJson(answer));
    // `search` (the aggregate failed and the adapter paged the window instead) is exact too: it
    // answers only when it could page every item.
    return activity.success ? ok(activity.data.total) : err({});
  };
}

/**
 * The pages paging `rows` takes when a full page holds `fill` rows (a little under the page size:
 * pages never split a second): every full page says has_more, and the listing ends on a page that
 * is not full.
 */
export function pagesForRows(rows: number, fill: number): number {
  return Math.floor(rows / Math.max(1, fill)) + 1;
}
