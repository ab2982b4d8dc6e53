/**
 * The polling loop of one replica. Every turn it walks the watched sources and polls each one that
 * is due and whose lease it wins (source-leases.ts), so a source is polled by one replica at a time
 * and once per interval however many monitors watch it. A poll first advances the monitors still
 * paging their backfill window, then reads the source's new items once and hands each monitor its
 * matches. Every step is repeatable: appending skips ids a monitor already holds, so a poll redone
 * after a crash delivers nothing twice.
 */
import { budgetAccountOf, createPhraseMatcher, type Subjects } from "@rda/contracts";
import { type Logger, type Loop, type NatsConnection, startLoop } from "@rda/service-kit";
import type { MonitorMetrics } from "./metrics.ts";
import { isRunning, type MonitorRecord, type Source, sourceOfKey } from "./monitor.ts";
import type { ListedItem, MonitorStore } from "./monitor-store.ts";
import type { HeldSource, SourceLeases } from "./source-leases.ts";
import { fetchSourcePage, type PageQuery } from "./source-pages.ts";

export interface PollerSettings {
  /** How often the replica looks for due sources, in ms. */
  readonly tickMs: number;
  /** Backfill pages one monitor may take per poll, so one long window does not starve the rest. */
  readonly backfillPagesPerPoll: number;
  /** Live pages per poll at most (a burst larger than this is read on the next poll). */
  readonly livePagesPerPoll: number;
  /** The wait for one adapter page. */
  readonly pageTimeoutMs: number;
  /**
   * How often a followed source is swept again for items the archive ingested after newer ones
   * (their `created_utc` is older than the newest second seen, so following misses them): one page,
   * the newest items up to the high-water mark. 0: never.
   */
  readonly lookbackEveryMs: number;
}

const PAGE_LIMIT = 100;
/** How long an unwatched source is left alone before it is looked at again. */
const IDLE_SOURCE_MS = 60_000;
/**
 * A failed poll (the adapter or the upstream did not answer in time) is tried again after this, or
 * the interval when shorter: a backfill must not stall for a whole interval (up to a day) on one
 * slow page.
 */
const FAILED_POLL_RETRY_MS = 30_000;

const TEXT_FIELDS = { post: ["title", "selftext"], comment: ["body"] } as const;

export interface PollerDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly store: MonitorStore;
  readonly leases: SourceLeases;
  readonly logger: Logger;
  readonly metrics: MonitorMetrics;
  readonly settings: PollerSettings;
}

export function startPoller(deps: PollerDeps): Loop {
  return startLoop({
    name: "monitor poll",
    everyMs: deps.settings.tickMs,
    turn: (isStopped) => pollDueSources(deps, isStopped),
    logger: deps.logger,
  });
}

async function pollDueSources(deps: PollerDeps, isStopped: () => boolean): Promise<void> {
  for (const key of await deps.store.sources()) {
    if (isStopped()) return;
    const held = await deps.leases.claimIfDue(key, Date.now());
    if (held === undefined) continue;
    await pollSource(deps, held);
  }
}

async function pollSource(deps: PollerDeps, held: HeldSource): Promise<void> {
  const source = sourceOfKey(held.key);
  const all = await deps.store.watching(held.key);
  const active = all.filter(isRunning);
  if (source === undefined || active.length === 0) {
    deps.metrics.polls.inc({ outcome: "idle" });
    if (all.length === 0) await deps.store.forgetSourceIfUnwatched(held.key);
    await deps.leases.release(held, held.state.hwm, Date.now() + IDLE_SOURCE_MS);
    return;
  }
  const intervalMs = Math.min(...active.map((monitor) => monitor.interval_seconds)) * 1000;
  const account = sharedPollAccount(active);
  let hwm = held.state.hwm;
  let backfillLeft = false;
  let sweptAt = held.state.swept_at;
  let failed = false;
  try {
    hwm ??= await newestSecond(deps, source, account);
    const live: MonitorRecord[] = [];
    for (const monitor of active) {
      const now =
        monitor.phase.name === "backfill" ? await advanceBackfill(deps, source, monitor, hwm) : monitor;
      if (now.phase.name === "live") live.push(now);
      else backfillLeft = true;
    }
    if (live.length > 0) hwm = await pollLive(deps, source, hwm, live, account);
    const now = Date.now();
    const { lookbackEveryMs } = deps.settings;
    if (live.length > 0 && lookbackEveryMs > 0 && now - (sweptAt ?? 0) >= lookbackEveryMs) {
      await sweepLate(deps, source, hwm, live, account);
      sweptAt = now;
    }
    deps.metrics.polls.inc({ outcome: "ok" });
  } catch (error) {
    failed = true;
    deps.metrics.polls.inc({ outcome: "failed" });
    deps.logger.warn({ err: error, source: held.key }, "source poll failed; tried again soon");
  }
  // A backfill still paging continues on the next turn rather than a whole interval later.
  const wait = backfillLeft
    ? deps.settings.tickMs
    : failed
      ? Math.min(intervalMs, FAILED_POLL_RETRY_MS)
      : intervalMs;
  const next = Date.now() + wait;
  if (!(await deps.leases.release(held, hwm, next, sweptAt)))
    deps.logger.warn({ source: held.key }, "source lease lost during a poll; its result is redone");
}

/**
 * Whose share of the monitors class a source's shared reads (its first read, live pages, late sweep)
 * draw on (docs/upstream.md#fair-shares). One poll serves every monitor on the source, so each poll
 * is counted for one of the accounts watching it, drawn at random: over many polls each account
 * takes its part. A source only one account watches is all that account's work, and many monitors
 * of one account count as one account.
 */
function sharedPollAccount(active: readonly MonitorRecord[]): string {
  const accounts = [...new Set(active.map((monitor) => budgetAccountOf(monitor.key_id, monitor.account_id)))];
  accounts.sort();
  return accounts[Math.floor(Math.random() * accounts.length)] as string;
}

/** Where live following starts on a source's first poll: after its newest item. */
async function newestSecond(deps: PollerDeps, source: Source, account: string): Promise<number> {
  const page = await fetchPage(deps, source, { sort: "desc", limit: 1 }, account);
  return page.items[0]?.created_utc ?? 0;
}

/**
 * Pages the monitor's window oldest-first from where it stands, up to the source's high-water mark;
 * then it turns live. The live poll reads from the high-water mark's second on, so the two overlap
 * by at least a second: no gap, and the overlap's ids are already delivered, so no duplicate.
 */
async function advanceBackfill(
  deps: PollerDeps,
  source: Source,
  monitor: MonitorRecord,
  hwm: number,
): Promise<MonitorRecord> {
  if (monitor.phase.name !== "backfill") return monitor;
  const from = monitor.backfill_from;
  if (from === undefined) return turnLive(deps, monitor, hwm);
  let cursor = monitor.phase.cursor ?? from - 1;
  const pagesBefore = monitor.phase.pages;
  // A backfill is one account's own work: it draws on that account's share of the monitors class.
  const account = budgetAccountOf(monitor.key_id, monitor.account_id);
  for (let pages = 0; pages < deps.settings.backfillPagesPerPoll; pages += 1) {
    const page = await fetchPage(deps, source, { sort: "asc", after: cursor, limit: PAGE_LIMIT }, account);
    await deps.store.append(monitor.id, page.items.filter(matcherOf(monitor)));
    cursor = page.cursor ?? cursor;
    if (!page.has_more || cursor >= hwm) return turnLive(deps, monitor, cursor - 1);
    const phase = { name: "backfill", cursor, pages: pagesBefore + pages + 1 } as const;
    await deps.store.update(monitor.id, (current) => ({ ...current, phase }));
  }
  return {
    ...monitor,
    phase: { name: "backfill", cursor, pages: pagesBefore + deps.settings.backfillPagesPerPoll },
  };
}

/** Only the phase is written, onto the record as it stands: a PATCH meanwhile keeps its fields. */
async function turnLive(deps: PollerDeps, monitor: MonitorRecord, after: number): Promise<MonitorRecord> {
  const phase = { name: "live", after } as const;
  await deps.store.update(monitor.id, (current) => ({ ...current, phase }));
  return { ...monitor, phase };
}

/** Reads the source from its high-water mark's second on, once, for every live monitor. */
async function pollLive(
  deps: PollerDeps,
  source: Source,
  hwm: number,
  live: readonly MonitorRecord[],
  account: string,
): Promise<number> {
  let after = hwm - 1;
  let newest = hwm;
  for (let pages = 0; pages < deps.settings.livePagesPerPoll; pages += 1) {
    const page = await fetchPage(deps, source, { sort: "asc", after, limit: PAGE_LIMIT }, account);
    for (const monitor of live) {
      const since = monitor.phase.name === "live" ? monitor.phase.after : hwm;
      const matches = matcherOf(monitor);
      const delivered = await deps.store.append(
        monitor.id,
        page.items.filter((item) => item.created_utc > since && matches(item)),
      );
      const now = Date.now() / 1000;
      for (const item of delivered) deps.metrics.deliveryDelay.observe(Math.max(0, now - item.created_utc));
    }
    for (const item of page.items) newest = Math.max(newest, item.created_utc);
    if (!page.has_more || page.cursor === null) break;
    after = page.cursor;
  }
  return newest;
}

/**
 * The newest page of the source up to the high-water mark, read again: an item in it that a live
 * monitor does not hold yet was ingested by the archive after newer ones. It is appended now (after
 * items newer than it: delivery order is the order items were found), once, as appending skips ids a
 * monitor holds.
 */
async function sweepLate(
  deps: PollerDeps,
  source: Source,
  hwm: number,
  live: readonly MonitorRecord[],
  account: string,
): Promise<void> {
  const page = await fetchPage(deps, source, { sort: "desc", before: hwm + 1, limit: PAGE_LIMIT }, account);
  const oldestFirst = [...page.items].reverse();
  for (const monitor of live) {
    const since = monitor.phase.name === "live" ? monitor.phase.after : hwm;
    const matches = matcherOf(monitor);
    const found = await deps.store.append(
      monitor.id,
      oldestFirst.filter((item) => item.created_utc > since && matches(item)),
    );
    if (found.length > 0) deps.metrics.lateItems.inc(found.length);
  }
}

function matcherOf(monitor: MonitorRecord): (item: ListedItem) => boolean {
  if (monitor.phrase === undefined) return () => true;
  const matches = createPhraseMatcher(monitor.phrase);
  const fields = TEXT_FIELDS[monitor.kind];
  return (item) =>
    fields.some((field) => {
      const text = (item as unknown as Record<string, unknown>)[field];
      return typeof text === "string" && matches(text);
    });
}

/** `account`: whose share of the monitors class the page draws on (docs/upstream.md#fair-shares). */
function fetchPage(deps: PollerDeps, source: Source, query: PageQuery, account: string) {
  return fetchSourcePage(deps.nats, deps.subjects, source, query, deps.settings.pageTimeoutMs, account);
}
