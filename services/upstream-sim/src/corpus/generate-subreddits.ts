import { TIME } from "./constants.ts";
import type { Rng } from "./prng.ts";
import { chance, intBetween, logNormal, pick, shuffleInPlace } from "./prng.ts";
import type { SubredditSpec } from "./subreddit-catalog.ts";
import { SUBREDDIT_CATALOG } from "./subreddit-catalog.ts";
import { makePublicDescription, makeSidebar } from "./text.ts";
import type { Rule, Subreddit } from "./types.ts";
import { RULE_TEMPLATES } from "./words.ts";

const YEAR = 365 * TIME.day;
const SUGGESTED_SORTS = [null, null, null, null, "new", "top", "qa", "confidence"] as const;

export function generateSubreddits(rng: Rng, anchor: number): Subreddit[] {
  const usedIds = new Set<string>();
  return SUBREDDIT_CATALOG.map((spec, index) => generateSubreddit(rng, anchor, spec, index, usedIds));
}

function generateSubreddit(
  rng: Rng,
  anchor: number,
  spec: SubredditSpec,
  index: number,
  usedIds: Set<string>,
): Subreddit {
  const createdUtc = anchor - intBetween(rng, 3 * YEAR, 17 * YEAR);
  const retrievedOn = anchor - intBetween(rng, 30 * TIME.day, 200 * TIME.day);
  const rules = generateRules(rng, spec.topics, createdUtc, retrievedOn);
  return {
    index,
    name: spec.name,
    id: uniqueSubredditId(rng, usedIds),
    title: spec.title,
    publicDescription: makePublicDescription(rng, spec.topics, spec.title),
    description: makeSidebar(
      rng,
      spec.topics,
      spec.title,
      rules.map((rule) => rule.short_name),
    ),
    subscribers: Math.floor(logNormal(rng, 12, 1.6)),
    createdUtc,
    retrievedOn,
    over18: spec.over18,
    topics: spec.topics,
    flairs: spec.flairs,
    selfShare: spec.selfShare,
    automod: chance(rng, 0.5),
    suggestedSort: pick(rng, SUGGESTED_SORTS),
    rules,
    meta: { num_posts: 0, num_comments: 0, earliest_post_at: null, earliest_comment_at: null },
  };
}

function uniqueSubredditId(rng: Rng, usedIds: Set<string>): string {
  for (;;) {
    const id = intBetween(rng, 36 ** 4, 36 ** 5 * 4).toString(36);
    if (!usedIds.has(id)) {
      usedIds.add(id);
      return id;
    }
  }
}

function generateRules(rng: Rng, topics: readonly string[], from: number, to: number): Rule[] {
  const templates = shuffleInPlace(rng, [...RULE_TEMPLATES]).slice(0, intBetween(rng, 3, 10));
  return templates.map((template, priority) => ({
    kind: template.kind,
    priority,
    short_name: template.shortName,
    description: template.description.replace("{topic}", pick(rng, topics)),
    violation_reason: chance(rng, 0.7) ? template.shortName : `Rule ${priority + 1}: ${template.shortName}`,
    created_utc: intBetween(rng, from, to),
  }));
}
