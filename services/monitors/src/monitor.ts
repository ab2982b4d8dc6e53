/**
 * What a monitor is: its definition as a caller writes it (validated here, one clear error per bad
 * field), and the record the service keeps (the definition plus where its delivery stands).
 */
import { type ItemKind, nowEpochSeconds, parseTimeBound, TIME_BOUND_HINT } from "@rda/contracts";
import { z } from "zod";

export interface MonitorLimits {
  /** Monitors one API key may hold at once. */
  readonly maxMonitorsPerKey: number;
  /** The shortest interval a monitor may ask for, in seconds. */
  readonly minIntervalSeconds: number;
}

export const DEFAULT_MONITOR_LIMITS: MonitorLimits = { maxMonitorsPerKey: 25, minIntervalSeconds: 60 };

const MAX_INTERVAL_SECONDS = 86_400;
const DEFAULT_INTERVAL_SECONDS = 300;
/** A backfill reaches at most this far back (the archive's retention of a monitor's interest). */
const MAX_BACKFILL_SECONDS = 365 * 86_400;

const NAME = /^[A-Za-z0-9_-]{2,32}$/;

function definitionFields(limits: MonitorLimits) {
  return {
    kind: z.enum(["post", "comment"], { error: "must be post or comment" }),
    subreddit: z.string().regex(NAME, { error: "must be a community name without r/" }).optional(),
    author: z.string().regex(NAME, { error: "must be a username without u/" }).optional(),
    phrase: z
      .string({ error: "must be a string" })
      .trim()
      .min(1, { error: "must not be empty" })
      .max(200, { error: "must be at most 200 characters" })
      .optional(),
    interval_seconds: z
      .number({ error: "must be a number of seconds" })
      .int({ error: "must be a whole number of seconds" })
      .min(limits.minIntervalSeconds, { error: `must be at least ${limits.minIntervalSeconds}` })
      .max(MAX_INTERVAL_SECONDS, { error: `must be at most ${MAX_INTERVAL_SECONDS}` }),
  };
}

export function createMonitorSchema(limits: MonitorLimits) {
  const fields = definitionFields(limits);
  return z
    .strictObject({
      ...fields,
      interval_seconds: fields.interval_seconds.default(DEFAULT_INTERVAL_SECONDS),
      backfill_from: z
        .union([z.string(), z.number()], { error: `must be ${TIME_BOUND_HINT}` })
        .transform((raw, ctx) => {
          const now = nowEpochSeconds();
          const parsed = parseTimeBound(raw, now);
          if (!parsed.ok) {
            ctx.addIssue({ code: "custom", message: parsed.error });
            return z.NEVER;
          }
          if (parsed.value > now) ctx.addIssue({ code: "custom", message: "must not be in the future" });
          if (parsed.value < now - MAX_BACKFILL_SECONDS)
            ctx.addIssue({ code: "custom", message: "must be within the last 365 days" });
          return parsed.value;
        })
        .optional(),
    })
    .superRefine((body, ctx) => {
      if ((body.subreddit === undefined) === (body.author === undefined))
        ctx.addIssue({ code: "custom", message: "give exactly one of subreddit or author", path: [] });
    });
}

/** A change to a monitor: its phrase, its interval, or pausing it. The source and kind stay. */
export function updateMonitorSchema(limits: MonitorLimits) {
  const fields = definitionFields(limits);
  return z.strictObject({
    phrase: fields.phrase.nullable(),
    interval_seconds: fields.interval_seconds.optional(),
    paused: z.boolean({ error: "must be true or false" }).optional(),
  });
}

export type CreateMonitorBody = z.output<ReturnType<typeof createMonitorSchema>>;
export type UpdateMonitorBody = z.output<ReturnType<typeof updateMonitorSchema>>;

/** Where a monitor's delivery stands: paging its backfill window, or following the source live. */
export type MonitorPhase =
  /** `cursor`: the newest second delivered so far (the next page starts after it); null: not started. */
  | { readonly name: "backfill"; readonly cursor: number | null }
  /** Live items newer than `after` (seconds) are delivered; an id delivered already never is again. */
  | { readonly name: "live"; readonly after: number };

export interface MonitorRecord {
  readonly id: string;
  readonly key_id: string;
  readonly kind: ItemKind;
  readonly subreddit?: string;
  readonly author?: string;
  readonly phrase?: string;
  readonly interval_seconds: number;
  readonly backfill_from?: number;
  readonly paused: boolean;
  readonly created_at: number;
  readonly phase: MonitorPhase;
}

/**
 * One source: a community's or an author's newest posts or comments. Every monitor on it shares one
 * poll. The form is a JetStream key-value key (letters, digits, `_`, `-` and dots only).
 */
export function sourceKeyOf(monitor: Pick<MonitorRecord, "kind" | "subreddit" | "author">): string {
  return monitor.subreddit !== undefined
    ? `${monitor.kind}.r.${monitor.subreddit.toLowerCase()}`
    : `${monitor.kind}.u.${(monitor.author ?? "").toLowerCase()}`;
}

export interface Source {
  readonly kind: ItemKind;
  readonly subreddit?: string;
  readonly author?: string;
}

export function sourceOfKey(key: string): Source | undefined {
  const match = /^(post|comment)\.(r|u)\.([a-z0-9_-]{2,32})$/.exec(key);
  if (!match) return undefined;
  const kind = match[1] as ItemKind;
  return match[2] === "r" ? { kind, subreddit: match[3] } : { kind, author: match[3] };
}

/** The view a caller gets: the definition and status, never the owner's key id. */
export function publicMonitor(monitor: MonitorRecord) {
  return {
    id: monitor.id,
    kind: monitor.kind,
    ...(monitor.subreddit !== undefined ? { subreddit: monitor.subreddit } : {}),
    ...(monitor.author !== undefined ? { author: monitor.author } : {}),
    phrase: monitor.phrase ?? null,
    interval_seconds: monitor.interval_seconds,
    backfill_from: monitor.backfill_from ?? null,
    status: monitor.paused ? "paused" : monitor.phase.name === "backfill" ? "backfilling" : "live",
    created_at: monitor.created_at,
  };
}
