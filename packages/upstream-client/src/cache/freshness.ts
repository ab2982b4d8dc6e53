/**
 * How long an upstream answer may be served again, decided from the request and the answer itself
 * (docs/architecture.md#the-response-cache). Reddit's scores, comment counts and edits keep changing
 * for about a day and a half after an item is created; past that the archive's copy is settled and
 * stops moving. So:
 *
 * - "settled" means: every item the answer can hold was created more than SETTLING_WINDOW_S ago. A
 *   listing or aggregate is settled when its window ends (`before`) at least that long ago; ids are
 *   settled when every id asked for came back and every item is that old; a comment tree when its
 *   oldest comment is that old (the post is older still). Rules and community search are settled by
 *   nature: they change rarely and no answer of ours promises them to the minute.
 * - "fresh": anything whose window reaches into the settling window: at most `freshS`.
 * - user aggregates (karma, counts): at most `userS`, whatever their age.
 *
 * Never stored: failures (never reach this module), empty answers (an empty page may be a transient
 * gap upstream), answers with anything beside `data` (the upstream may be saying they are partial),
 * answers to a changed query (a "busy" retry halved `limit`: the page is not the one asked for), and
 * paths this module does not know.
 */
import type { UpstreamQuery } from "../types.ts";

/** 36 hours: scores and comment counts are still settling before this age. */
export const SETTLING_WINDOW_S = 36 * 3600;

export interface FreshnessBounds {
  /** Answers that reach into the settling window (CACHE_FRESH_S, default 30). */
  readonly freshS: number;
  /** Settled history, settled ids, rules, community search (CACHE_SETTLED_S, default 3600). */
  readonly settledS: number;
  /** User aggregates (CACHE_USER_S, default 600). */
  readonly userS: number;
}

export const DEFAULT_FRESHNESS_BOUNDS: FreshnessBounds = Object.freeze({
  freshS: 30,
  settledS: 3600,
  userS: 600,
});

export type FreshnessClass = "fresh" | "settled" | "user";

export type Freshness =
  | { readonly cacheable: true; readonly class: FreshnessClass; readonly maxAgeS: number }
  | { readonly cacheable: false; readonly reason: string };

export interface AnswerToJudge {
  /** The upstream path without the base URL's prefix, e.g. `/api/posts/search`. */
  readonly path: string;
  /** The query asked for. */
  readonly query: UpstreamQuery;
  /** The query of the attempt that answered (differs after a "busy" retry). */
  readonly answeredQuery: UpstreamQuery;
  readonly data: unknown;
  /** False when the body held more than `data`. */
  readonly onlyData: boolean;
}

const WINDOWED_PATHS = new Set([
  "/api/posts/search",
  "/api/comments/search",
  "/api/posts/search/aggregate",
  "/api/comments/search/aggregate",
]);
const IDS_PATHS = new Set(["/api/posts/ids", "/api/comments/ids"]);
const SETTLED_BY_NATURE = new Set(["/api/subreddits/rules", "/api/subreddits/search"]);
const USER_PATHS = new Set(["/api/users/search"]);

export function judgeFreshness(answer: AnswerToJudge, bounds: FreshnessBounds, nowMs: number): Freshness {
  if (!answer.onlyData) return refuse("the body holds more than data (maybe partial)");
  if (!sameQuery(answer.query, answer.answeredQuery)) return refuse("answered a changed query");
  if (isEmpty(answer.data)) return refuse("empty answers may be transient");
  const settledBefore = Math.floor(nowMs / 1000) - SETTLING_WINDOW_S;
  const fresh = { cacheable: true, class: "fresh", maxAgeS: bounds.freshS } as const;
  const settled = { cacheable: true, class: "settled", maxAgeS: bounds.settledS } as const;
  const { path } = answer;
  if (WINDOWED_PATHS.has(path)) {
    const before = epochSeconds(answer.query.before);
    return before !== undefined && before <= settledBefore ? settled : fresh;
  }
  if (IDS_PATHS.has(path)) {
    const asked = String(answer.query.ids ?? "")
      .split(",")
      .filter(Boolean).length;
    const rows = Array.isArray(answer.data) ? answer.data : [];
    const allOld = rows.every((row) => createdBefore(row, settledBefore));
    return rows.length === asked && allOld ? settled : fresh;
  }
  if (path === "/api/comments/tree") {
    const oldest = oldestCreated(answer.data);
    return oldest !== undefined && oldest <= settledBefore ? settled : fresh;
  }
  if (SETTLED_BY_NATURE.has(path)) return settled;
  if (USER_PATHS.has(path)) return { cacheable: true, class: "user", maxAgeS: bounds.userS };
  return refuse("an upstream path without a freshness rule");
}

function refuse(reason: string): Freshness {
  return { cacheable: false, reason };
}

function sameQuery(a: UpstreamQuery, b: UpstreamQuery): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (String(a[key]) !== String(b[key])) return false;
  return true;
}

function isEmpty(data: unknown): boolean {
  if (data === null || data === undefined) return true;
  if (Array.isArray(data)) return data.length === 0;
  if (typeof data === "object") return Object.keys(data).length === 0;
  return false;
}

/** Our adapters send epoch seconds; a date in another form is not trusted to be old. */
function epochSeconds(value: UpstreamQuery[string]): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

function createdBefore(row: unknown, settledBefore: number): boolean {
  if (typeof row !== "object" || row === null) return false;
  const created = Number((row as { created_utc?: unknown }).created_utc);
  return Number.isFinite(created) && created <= settledBefore;
}

/** The smallest `created_utc` anywhere in a comment tree (things nest under data and replies). */
function oldestCreated(tree: unknown): number | undefined {
  let oldest: number | undefined;
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
    } else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "created_utc") {
          const created = Number(value);
          if (Number.isFinite(created) && (oldest === undefined || created < oldest)) oldest = created;
        } else if (typeof value === "object" && value !== null) {
          stack.push(value);
        }
      }
    }
  }
  return oldest;
}
