/**
 * Reads the upstream's rate-limit headers (docs/upstream.md#rate-limits) on every answer. The reset
 * arrives in several forms: seconds left in the window (`x-ratelimit-reset: 42`), or a moment, as
 * epoch seconds or epoch milliseconds (`x-ratelimit-reset-at: 1790000040000`). The forms are told
 * apart by size, which cannot be confused: a window of seconds left is far below 10^9 (the epoch
 * second of 2001), and epoch seconds are far below 10^11 (the epoch millisecond of 1973).
 */
import type { WindowReport } from "./pacer/pacer.ts";

/** Longest reset believed: a value further out is a misreading, and is ignored. */
const MAX_RESET_MS = 60 * 60 * 1000;
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MILLISECONDS_FROM = 1e11;

type HeaderValue = string | string[] | undefined;

/**
 * The window as one answer's headers describe it, or undefined when they say nothing usable.
 * `x-ratelimit-reset` is preferred: as seconds left it does not depend on the two clocks agreeing.
 * Either header is read in whichever form it comes.
 */
export function readWindowHeaders(
  headers: Record<string, HeaderValue>,
  status: number,
  nowMs: number,
): WindowReport | undefined {
  const resetAtMs =
    resetMoment(headers["x-ratelimit-reset"], nowMs) ?? resetMoment(headers["x-ratelimit-reset-at"], nowMs);
  const remaining = wholeNumber(headers["x-ratelimit-remaining"]);
  const rateLimited = status === 429;
  if (resetAtMs === undefined && remaining === undefined && !rateLimited) return undefined;
  return {
    rateLimited,
    ...(resetAtMs === undefined ? {} : { resetAtMs }),
    ...(remaining === undefined ? {} : { remaining }),
  };
}

/** The epoch ms a reset header names, whatever its form; undefined when unreadable or implausible. */
export function resetMoment(header: HeaderValue, nowMs: number): number | undefined {
  const value = numberOf(header);
  if (value === undefined || value < 0) return undefined;
  let moment: number;
  if (value >= EPOCH_MILLISECONDS_FROM) moment = value;
  else if (value >= EPOCH_SECONDS_FROM) moment = value * 1000;
  else moment = nowMs + value * 1000;
  // A moment just past (clocks differ, the answer took time) means the window has already turned.
  if (moment < nowMs) return moment < nowMs - MAX_RESET_MS ? undefined : nowMs;
  return moment - nowMs > MAX_RESET_MS ? undefined : Math.ceil(moment);
}

function numberOf(header: HeaderValue): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const value = Number(raw.trim());
  return Number.isFinite(value) ? value : undefined;
}

function wholeNumber(header: HeaderValue): number | undefined {
  const value = numberOf(header);
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
}
