/**
 * The upstream metrics of one adapter, labelled by adapter and operation: HTTP attempts by status
 * class and their latency, calls by outcome and their latency (retries and waits included), retries,
 * calls coalesced into one already in flight (in this replica or another), looks into the shared
 * response cache, calls refused with a block page, and turns in the shared pacer (outcome, wait).
 * Fed by the upstream client's observer.
 */
import { Counter, Gauge, Histogram, type Registry } from "@rda/service-kit";
import type { TrafficClass, UpstreamObserver } from "@rda/upstream-client";

const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16];

export function upstreamObserver(registry: Registry, adapter: string): UpstreamObserver {
  const registers = [registry];
  const requests = new Counter({
    name: "upstream_requests_total",
    help: "HTTP requests sent to the upstream, by adapter, operation and status class (timeout and error: no answer).",
    labelNames: ["adapter", "operation", "status_class"],
    registers,
  });
  const requestDuration = new Histogram({
    name: "upstream_request_duration_seconds",
    help: "Time of one HTTP request to the upstream, by adapter and operation.",
    labelNames: ["adapter", "operation"],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const calls = new Counter({
    name: "upstream_calls_total",
    help: "Upstream calls (one per adapter request, retries included) by outcome: ok, bad_request, rate_limited, unavailable.",
    labelNames: ["adapter", "operation", "outcome"],
    registers,
  });
  const callDuration = new Histogram({
    name: "upstream_call_duration_seconds",
    help: "Time of one upstream call, every retry and wait included, by adapter and operation.",
    labelNames: ["adapter", "operation"],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: "upstream_retries_total",
    help: "Retries of upstream calls (attempts beyond the first), by adapter and operation.",
    labelNames: ["adapter", "operation"],
    registers,
  });
  const coalesced = new Counter({
    name: "upstream_coalesced_calls_total",
    help: "Calls answered by joining an identical upstream call in flight, by adapter and operation.",
    labelNames: ["adapter", "operation"],
    registers,
  });
  const blocked = new Counter({
    name: "upstream_blocked_total",
    help: "Upstream calls refused with a block page (a non-JSON 403, such as Cloudflare's), by adapter and operation.",
    labelNames: ["adapter", "operation"],
    registers,
  });
  const turns = new Counter({
    name: "upstream_pacer_turns_total",
    help: "Turns asked of the shared upstream pacer, by outcome: granted, window_spent, queue_full, pacer_unavailable (the last three: nothing was sent).",
    labelNames: ["adapter", "operation", "outcome"],
    registers,
  });
  const turnWait = new Histogram({
    name: "upstream_pacer_wait_seconds",
    help: "Time an upstream request waited for its turn in the shared budget, by adapter and operation.",
    labelNames: ["adapter", "operation"],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const cacheLookups = new Counter({
    name: "upstream_cache_lookups_total",
    help: "Looks into the shared response cache, by adapter, operation and result: hit, miss, bypass (Cache-Control: no-cache) or error (the cache unreachable: fetched uncached).",
    labelNames: ["adapter", "operation", "result"],
    registers,
  });
  return {
    cacheLookup: ({ operation, lookup }) => cacheLookups.inc({ adapter, operation, result: lookup }),
    turn({ operation, outcome, seconds }) {
      turns.inc({ adapter, operation, outcome });
      turnWait.observe({ adapter, operation }, seconds);
    },
    attempt({ operation, statusClass, seconds }) {
      requests.inc({ adapter, operation, status_class: statusClass });
      requestDuration.observe({ adapter, operation }, seconds);
    },
    call({ operation, outcome, retries: count, seconds }) {
      calls.inc({ adapter, operation, outcome });
      callDuration.observe({ adapter, operation }, seconds);
      if (count > 0) retries.inc({ adapter, operation }, count);
    },
    coalesced: (operation) => coalesced.inc({ adapter, operation }),
    blocked: (operation) => blocked.inc({ adapter, operation }),
  };
}

/**
 * The upstream budget by traffic class: turns granted (each one upstream HTTP request) and the share
 * each background class is sure of (interactive takes what it needs: its share is 1 minus theirs).
 */
export function budgetMetrics(
  registry: Registry,
  adapter: string,
  shares: { readonly monitors: number; readonly exports: number },
): { granted(priority: TrafficClass): void } {
  const registers = [registry];
  const turns = new Counter({
    name: "upstream_budget_turns_total",
    help: "Turns in the shared upstream budget granted to this adapter, by traffic class (interactive, monitors, exports): one upstream HTTP request each.",
    labelNames: ["adapter", "class"],
    registers,
  });
  const share = new Gauge({
    name: "upstream_budget_share",
    help: "The share of upstream turns each background class is sure of under interactive load (UPSTREAM_SHARE_MONITORS, UPSTREAM_SHARE_EXPORTS).",
    labelNames: ["adapter", "class"],
    registers,
  });
  share.set({ adapter, class: "monitors" }, shares.monitors);
  share.set({ adapter, class: "exports" }, shares.exports);
  return { granted: (priority) => turns.inc({ adapter, class: priority }) };
}
