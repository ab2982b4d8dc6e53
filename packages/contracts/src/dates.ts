/**
 * The `after`/`before` forms a caller may send, normalised to epoch seconds at the edge.
 *
 * docs/upstream.md#dates: the upstream's own offset parser is ambiguous (`3m`) and rejects `1w`, so we parse
 * relative forms ourselves and forward plain epoch seconds, which every upstream understands the same way.
 */

import { err, ok, type Result } from "./result.ts";

const SECONDS_PER_UNIT: Readonly<Record<string, number>> = Object.freeze({
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
  w: 604_800,
  week: 604_800,
  weeks: 604_800,
  mo: 2_592_000,
  month: 2_592_000,
  months: 2_592_000,
  y: 31_536_000,
  year: 31_536_000,
  years: 31_536_000,
});

const RELATIVE_FORM = /^(\d{1,6})\s*([a-z]+)$/;
const EPOCH_SECONDS = /^\d{1,11}$/;

/** The oldest and newest instants accepted, so a typo (an epoch in ms, year 9999) fails loudly. */
const EARLIEST_EPOCH_SECONDS = 1_104_537_600; // 2005-01-01, before the site's first post
const LATEST_EPOCH_SECONDS = 4_102_444_800; // 2100-01-01

export const TIME_BOUND_HINT =
  "an epoch-seconds integer, an ISO 8601 date (2024-01-31 or 2024-01-31T12:00:00Z) or a relative form such as 30min, 12h, 7d, 2w, 3mo or 1y";

/**
 * Parses one `after`/`before` value into epoch seconds; `nowSeconds` anchors the relative forms.
 * The error is the reason, phrased to follow the parameter's name.
 */
export function parseTimeBound(raw: string | number, nowSeconds: number): Result<number> {
  const seconds = readTimeBound(raw, nowSeconds);
  if (seconds === undefined) return err(`must be ${TIME_BOUND_HINT}`);
  if (seconds < EARLIEST_EPOCH_SECONDS || seconds > LATEST_EPOCH_SECONDS) {
    return err("is outside the archive's range (2005 to 2100)");
  }
  return ok(seconds);
}

/**
 * The epoch seconds a time bound names, or undefined when it is in none of the known forms; no range
 * check, for a caller whose own, narrower rule should be the one a person reads (a monitor's backfill).
 */
export function readTimeBound(raw: string | number, nowSeconds: number): number | undefined {
  return parseKnownForm(String(raw).trim().toLowerCase(), nowSeconds);
}

function parseKnownForm(text: string, nowSeconds: number): number | undefined {
  if (EPOCH_SECONDS.test(text)) return Number(text);
  const relative = RELATIVE_FORM.exec(text);
  if (relative) {
    const perUnit = SECONDS_PER_UNIT[relative[2]!];
    return perUnit === undefined ? undefined : nowSeconds - Number(relative[1]) * perUnit;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const millis = Date.parse(text.includes("t") || text.length === 10 ? text.toUpperCase() : text);
    return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000);
  }
  return undefined;
}

export function nowEpochSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
