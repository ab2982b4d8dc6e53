/**
 * Results of the tools that answer one short thing: community search (at most 10), a community's
 * rules, a user's profile and the account. Their items are small already; rules and profiles keep the
 * fields the contract documents and drop the upstream's bookkeeping (rule kinds, stats timestamps).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Account } from "@rda/contracts";
import { project } from "./fields.ts";
import { assemble, count, cutSentence, fitToBudget, type Service } from "./presentation.ts";

type Args = Record<string, unknown>;
type Json = Record<string, unknown>;
type Envelope = { data: unknown; _service: Service };

const RULE_FIELDS = ["short_name", "description", "priority"];
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

export function presentCommunities(
  tool: string,
  envelope: Envelope,
  args: Args,
  budget: number,
): CallToolResult {
  const communities = envelope.data as Json[];
  const build = (shown: number) =>
    assemble(
      tool,
      {
        data: communities.slice(0, shown),
        summary: `${count(shown, "community", "communities")} whose name starts with "${args.q}".`,
        ...(shown < communities.length
          ? {
              truncated: `${cutSentence(budget, shown, communities.length, "communities")} A longer q narrows them.`,
            }
          : {}),
      },
      envelope._service,
    );
  return fitToBudget(communities.length, build, budget);
}

export function presentRules(tool: string, envelope: Envelope, _args: Args, budget: number): CallToolResult {
  const { subreddit, rules } = envelope.data as { subreddit: string; rules: Json[] };
  const lean = rules.map((rule) => project(rule, RULE_FIELDS));
  const build = (shown: number) =>
    assemble(
      tool,
      {
        data: { subreddit, rules: lean.slice(0, shown) },
        summary: `${count(shown, "rule")} of r/${subreddit}.`,
        ...(shown < lean.length ? { truncated: cutSentence(budget, shown, lean.length, "rules") } : {}),
      },
      envelope._service,
    );
  return fitToBudget(lean.length, build, budget);
}

export function presentUser(tool: string, envelope: Envelope, args: Args): CallToolResult {
  const { user } = envelope.data as { user: Json | null };
  if (user === null) {
    const summary = `No user is named exactly ${args.name}; the lookup was made, so it was charged.`;
    return assemble(tool, { data: { user: null }, summary }, envelope._service);
  }
  const meta = project((user._meta ?? {}) as Json, PROFILE_META_FIELDS);
  const summary = `u/${user.author}: ${meta.num_posts} posts, ${meta.num_comments} comments, ${meta.total_karma} karma summed from archived items.`;
  return assemble(
    tool,
    { data: { user: { author: user.author, id: user.id, _meta: meta } }, summary },
    envelope._service,
  );
}

export function presentAccount(tool: string, envelope: Envelope): CallToolResult {
  const account = envelope.data as Account;
  const { qps, burst } = account.rate_limit;
  const summary = `Balance: ${account.credits_balance} credits. Rate limit: ${qps} requests per second, bursts of ${burst}.${spendSentence(account.spend)}`;
  return assemble(tool, { data: account, summary }, envelope._service);
}

/** The month's spend against the key's cap, for check_credits. */
function spendSentence(spend: Account["spend"]): string {
  const reset = spend.resets_at.replace(".000Z", "Z");
  if (spend.monthly_cap === null)
    return ` Spent this month (${spend.month}, UTC): ${spend.credits_spent} credits; no monthly spend cap.`;
  const left = Math.max(0, spend.monthly_cap - spend.credits_spent);
  return ` Monthly spend cap: ${spend.credits_spent} of ${spend.monthly_cap} credits spent in ${spend.month} (UTC), ${left} left; it resets at ${reset}.`;
}
