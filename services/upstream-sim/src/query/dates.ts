/**
 * The upstream's date forms (docs/upstream.md#dates): epoch seconds, epoch milliseconds,
 * partial ISO 8601, or an offset back from now. Returns epoch seconds (possibly
 * fractional, from milliseconds) or undefined when the text is none of these.
 */
const DAY = 86_400;

/**
 * Offset units. `m` means months: upstream writes minutes as `min` (`5min`) and
 * lists `3m` next to `1year`, so `3m` is read as three months (docs/upstream.md#dates).
 * Weeks are absent on purpose: `1w` is reported not to work upstream.
 */
const UNIT_SECONDS: Readonly<Record<string, number>> = {
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
  d: DAY,
  day: DAY,
  days: DAY,
  m: 30 * DAY,
  mo: 30 * DAY,
  month: 30 * DAY,
  months: 30 * DAY,
  y: 365 * DAY,
  yr: 365 * DAY,
  year: 365 * DAY,
  years: 365 * DAY,
};

/** Epoch values from 10^11 up are milliseconds: 10^11 seconds would be the year 5138. */
const MILLISECONDS_FROM = 1e11;

const EPOCH = /^\d+(\.\d+)?$/;
const OFFSET = /^(\d+)\s*([a-z]+)$/i;
const ISO =
  /^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

export function parseDate(text: string, nowSeconds: number): number | undefined {
  const value = text.trim();
  if (EPOCH.test(value)) return parseEpoch(value);
  const offset = OFFSET.exec(value);
  if (offset) return parseOffset(offset[1] as string, offset[2] as string, nowSeconds);
  const iso = ISO.exec(value);
  return iso ? parseIso(iso) : undefined;
}

function parseEpoch(value: string): number {
  const n = Number(value);
  return n >= MILLISECONDS_FROM ? n / 1000 : n;
}

function parseOffset(amount: string, unit: string, nowSeconds: number): number | undefined {
  const seconds = UNIT_SECONDS[unit.toLowerCase()];
  return seconds === undefined ? undefined : nowSeconds - Number(amount) * seconds;
}

/** A date without a zone is UTC, as the upstream stores created_utc. */
function parseIso(match: RegExpExecArray): number | undefined {
  const [, year, month, day = "01", hour = "00", minute = "00", second = "00", fraction = "0", zone] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5]);
  if (!sameFields(new Date(ms), fields)) return undefined;
  return ms / 1000 + Number(`0.${fraction}`) - zoneOffsetSeconds(zone);
}

/** Date.UTC rolls 2020-02-31 over to March; a round trip catches such dates. */
function sameFields(date: Date, fields: readonly number[]): boolean {
  const back = [
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  return back.every((value, i) => value === fields[i]);
}

function zoneOffsetSeconds(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0;
  const digits = zone.replace(":", "");
  const sign = digits.startsWith("-") ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 3600 + Number(digits.slice(3, 5)) * 60);
}
