/**
 * adapter.subreddits.rules (docs/api.md#subreddit-rules, docs/upstream.md#rules): the upstream answers a list of
 * {subreddit, rules:[…]}; each rule keeps short_name, description, priority and passes its other keys
 * through. A community without an entry has no rules on record: {subreddit: name, rules: []}.
 */

import {
  failureReply,
  type OperationContext,
  okReply,
  unavailableReply,
  withIntegerEpochs,
} from "@rda/adapter-kit";
import type { GetSubredditRulesParams } from "@rda/contracts";
import type { UpstreamClient } from "@rda/upstream-client";

interface RulesEntry {
  readonly subreddit: string;
  readonly rules: readonly unknown[];
}

export async function getSubredditRules(
  client: UpstreamClient,
  params: GetSubredditRulesParams,
  context: OperationContext,
): Promise<Uint8Array> {
  const result = await client.get("/api/subreddits/rules", { subreddits: params.name }, context);
  if (result.outcome !== "ok") return failureReply(result);
  const entries = result.body.data;
  if (!Array.isArray(entries)) return unavailableReply("upstream: rules data is not a list");
  // Community names are case-insensitive; the upstream's spelling is the one returned.
  const wanted = params.name.toLowerCase();
  const entry = entries.find(
    (item): item is RulesEntry => isRulesEntry(item) && item.subreddit.toLowerCase() === wanted,
  );
  const body = entry
    ? { subreddit: entry.subreddit, rules: entry.rules.filter(isObject).map(toRule) }
    : { subreddit: params.name, rules: [] };
  return okReply(JSON.stringify(body));
}

/**
 * The contract's rule fields, whatever the upstream sent (docs/api.md#rule-object): about 1 % of
 * descriptions are null upstream, so a null (or missing) `description` or `short_name` reads "", a
 * `priority` that is not an integer reads the rule's place in the list, and `created_utc` is an integer.
 * Other keys pass through.
 */
function toRule(rule: object, place: number): object {
  const { short_name, description, priority } = rule as Record<string, unknown>;
  return {
    ...withIntegerEpochs(rule as Record<string, unknown>),
    short_name: typeof short_name === "string" ? short_name : "",
    description: typeof description === "string" ? description : "",
    priority: Number.isInteger(priority) ? priority : place,
  };
}

function isRulesEntry(value: unknown): value is RulesEntry {
  if (!isObject(value)) return false;
  const { subreddit, rules } = value as Record<string, unknown>;
  return typeof subreddit === "string" && Array.isArray(rules);
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
