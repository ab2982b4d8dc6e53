/**
 * What a monitor is: its definition as a caller writes it (validated by the schemas of
 * @rda/contracts' monitors.ts), and the record the service keeps (the definition plus where its
 * delivery stands).
 */
import type { ItemKind, MonitorFunding, MonitorStatus } from "@rda/contracts";

/** Where a monitor's delivery stands: paging its backfill window, or following the source live. */
export type MonitorPhase =
  /**
   * `cursor`: the newest second delivered so far (the next page starts after it); null: not started.
   * `pages`: upstream pages the backfill has read so far.
   */
  | { readonly name: "backfill"; readonly cursor: number | null; readonly pages: number }
  /** Live items newer than `after` (seconds) are delivered; an id delivered already never is again. */
  | { readonly name: "live"; readonly after: number };

export interface MonitorRecord {
  readonly id: string;
  readonly key_id: string;
  /** The portal account of the key, whose limit on monitors it counts towards; absent: none. */
  readonly account_id?: string;
  readonly kind: ItemKind;
  readonly subreddit?: string;
  readonly author?: string;
  readonly phrase?: string;
  readonly interval_seconds: number;
  readonly backfill_from?: number;
  readonly paused: boolean;
  /**
   * When the monitor's key was revoked (seconds): it stopped for good, no longer polls or delivers,
   * and no longer counts towards its account's limit (docs/api.md#monitors).
   */
  readonly revoked_at?: number;
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

/** Whether the monitor still runs: neither paused by its caller nor stopped by its key's revocation. */
export function isRunning(monitor: MonitorRecord): boolean {
  return !monitor.paused && monitor.revoked_at === undefined;
}

/**
 * What a caller sees as the status: `revoked` (its key was revoked: stopped for good), `paused` (by the caller), `paused_for_credits` (the key cannot
 * pay for a delivery now: items are still matched and kept, and delivered after a top-up), else
 * where delivery stands, `backfilling` or `live`.
 */
export function statusOf(monitor: MonitorRecord, funding: MonitorFunding = "ok"): MonitorStatus {
  if (monitor.revoked_at !== undefined) return "revoked";
  if (monitor.paused) return "paused";
  if (funding !== "ok") return "paused_for_credits";
  return monitor.phase.name === "backfill" ? "backfilling" : "live";
}

/** The view a caller gets: the definition and status, never the owner's key or account id. */
export function publicMonitor(monitor: MonitorRecord, funding: MonitorFunding = "ok") {
  return {
    id: monitor.id,
    kind: monitor.kind,
    ...(monitor.subreddit !== undefined ? { subreddit: monitor.subreddit } : {}),
    ...(monitor.author !== undefined ? { author: monitor.author } : {}),
    phrase: monitor.phrase ?? null,
    interval_seconds: monitor.interval_seconds,
    backfill_from: monitor.backfill_from ?? null,
    status: statusOf(monitor, funding),
    ...(funding !== "ok" && isRunning(monitor) ? { paused_reason: funding } : {}),
    created_at: monitor.created_at,
    ...backfillProgress(monitor),
  };
}

/**
 * While a backfill is paging: how far it has collected (`through`, epoch seconds; null before its
 * first page) and the upstream pages it has read. What an MCP task reports of the backfill.
 */
function backfillProgress(monitor: MonitorRecord) {
  const { phase } = monitor;
  if (phase.name !== "backfill" || monitor.backfill_from === undefined) return {};
  return { backfill_progress: { through: phase.cursor, pages_done: phase.pages } };
}
