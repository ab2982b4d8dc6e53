/**
 * Results of search_users (a page of profiles, paged by rank) and get_activity (counts per bucket).
 * Both are cut at whole items to stay within the byte budget; a cut result's `next` continues right
 * after the last item shown, so nothing is skipped.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ACTIVITY_INTERVAL_SECONDS, type Activity, type ActivityInterval } from "@rda/contracts";
import { project } from "./fields.ts";
import { assemble, count, cutSentence, itemsWithinBudget, type Service } from "./presentation.ts";

type Args = Record<string, unknown>;
type Json = Record<string, unknown>;

const PROFILE_META_FIELDS = [
  "num_posts",
  "num_comments",
  "post_karma",
  "comment_karma",
  "total_karma",
  "earliest_post_at",
  "earliest_comment_at",
  "last_post_at",
  "last_comment_at",
];

export function presentUsers(
  tool: string,
  envelope: { data: unknown; _service: Service },
  args: Args,
  budget: number,
): CallToolResult {
  const users = (envelope.data as Json[]).map((user) => ({
    author: user.author,
    id: user.id,
    _meta: project((user._meta ?? {}) as Json, PROFILE_META_FIELDS),
  }));
  const offset = typeof args.offset === "number" ? args.offset : 0;
  const service = envelope._service;
  const build = (shown: number) => {
    const cut = shown < users.length;
    const more = cut || (service.has_more === true && typeof service.cursor === "number");
    const nextOffset = offset + shown;
    return assemble(
      tool,
      {
        data: users.slice(0, shown),
        summary: `${count(shown, "user")}, ranks ${offset + 1} to ${offset + shown}.`,
        ...(more ? { next: { ...args, offset: nextOffset } } : {}),
        ...(cut
          ? {
              truncated: cutSentence(budget, shown, users.length, "users"),
              service: { cursor: nextOffset, has_more: true },
            }
          : {}),
      },
      service,
    );
  };
  return build(itemsWithinBudget(users.length, build, budget));
}

export function presentActivity(
  tool: string,
  envelope: { data: unknown; _service: Service },
  args: Args,
  budget: number,
): CallToolResult {
  const activity = envelope.data as Activity;
  const { buckets } = activity;
  const length = ACTIVITY_INTERVAL_SECONDS[activity.interval as ActivityInterval];
  const unsettled = buckets.filter((bucket) => !bucket.settled).length;
  const build = (shown: number) => {
    const kept = buckets.slice(0, shown);
    const cut = shown < buckets.length;
    const last = kept.at(-1);
    const total = kept.reduce((sum, bucket) => sum + bucket.count, 0);
    const how =
      activity.source === "aggregate" ? "the archive's own counts" : "counted by paging every matching item";
    return assemble(
      tool,
      {
        data: { ...activity, buckets: kept, total },
        summary: `${count(total, activity.kind === "posts" ? "post" : "comment")} in ${count(shown, activity.interval)} (${how}).`,
        ...(unsettled > 0
          ? {
              note: `${count(unsettled, "bucket")} less than 36 h old ${unsettled === 1 ? "is" : "are"} marked settled: false; their counts can still change.`,
            }
          : {}),
        ...(cut && last
          ? {
              truncated: cutSentence(budget, shown, buckets.length, "buckets"),
              // `after` is exclusive: one second before the next bucket starts keeps all of it.
              next: { ...args, after: last.start + length - 1, before: activity.before },
            }
          : {}),
      },
      envelope._service,
    );
  };
  return build(itemsWithinBudget(buckets.length, build, budget));
}
