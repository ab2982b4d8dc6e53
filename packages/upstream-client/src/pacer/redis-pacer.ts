/**
 * The pacer shared by every adapter replica, kept in Redis: one script takes a turn (the rate, the
 * cap in flight and the upstream's window, decided together on Redis' clock), one ends it and
 * records the upstream's window. Each request in flight holds a short lease that its replica renews
 * while the request is out, so a replica killed mid-request frees its place within one lease.
 */
import { randomUUID } from "node:crypto";
import { UPSTREAM_BUDGET_DEFAULTS } from "@rda/contracts";
import { type Logger, luaScript, type Redis, renewWhileHeld, type UpstreamPacerKeys } from "@rda/service-kit";
import { FINISH_TURN, RENEW_LEASE, TAKE_TURN } from "./pacer-scripts.ts";

const takeTurn = luaScript(TAKE_TURN);
const renewLease = luaScript(RENEW_LEASE);
const finishTurn = luaScript(FINISH_TURN);

export interface PacerSettings {
  /** Upstream requests per second, every replica together. */
  readonly requestsPerSecond: number;
  /** Upstream requests in flight, every replica together. */
  readonly concurrency: number;
  /** How long a place in flight lasts without renewal; renewed every third of it. Default 3000. */
  readonly leaseMs?: number;
  /**
   * The share of turns each background class is sure of however busy interactive traffic is (0 to 1;
   * default 0.1 each): at worst one turn every interval / share. Otherwise background takes only
   * turns no interactive caller is waiting for.
   */
  readonly backgroundShares?: { readonly monitors?: number; readonly exports?: number };
  /**
   * The longest an interactive caller waits for a turn before it is told our budget is spent: well
   * under its deadline, so a customer hears "try again" rather than waits out the deadline. Default
   * UPSTREAM_BUDGET_DEFAULTS.interactiveWaitMs. Background waits until its own deadline.
   */
  readonly interactiveWaitMs?: number;
  /** Told about every turn granted, by class (the budget used per class). */
  readonly onGranted?: (priority: TrafficClass) => void;
}

export const DEFAULT_BACKGROUND_SHARE = 0.1;

/** Longest single sleep between two asks for a turn, so a freed place is noticed quickly. */
const MAX_POLL_MS = 250;

export function createRedisPacer(
  redis: Redis,
  keys: UpstreamPacerKeys,
  settings: PacerSettings,
  logger?: Logger,
): UpstreamPacer {
  checkSettings(settings);
  // Fractional: a rate raised out of the way (a benchmark's) must not round up to 1 ms apart.
  const intervalMs = 1000 / settings.requestsPerSecond;
  const leaseMs = settings.leaseMs ?? 3_000;
  const interactiveWaitMs = settings.interactiveWaitMs ?? UPSTREAM_BUDGET_DEFAULTS.interactiveWaitMs;
  const scriptKeys = [keys.state, keys.leases, keys.waiting, keys.background, keys.shares, keys.queued];
  const shareOf = (priority: TrafficClass) =>
    priority === "interactive" ? 0 : (settings.backgroundShares?.[priority] ?? DEFAULT_BACKGROUND_SHARE);

  const take = async (lease: string, priority: TrafficClass, account: string) => {
    const args = [lease, intervalMs, settings.concurrency, leaseMs, priority, shareOf(priority), account];
    const [code, ms, flows = 0] = (await takeTurn.run(redis, scriptKeys, args)) as number[];
    return { code: code as number, ms: ms as number, flows };
  };
  // Honest: the wait for the next turn, or for one turn round the other flows waiting, whichever is longer.
  const retryAfterOf = (answer: { ms: number; flows: number }) =>
    Math.max(1, Math.ceil(Math.max(answer.ms, (answer.flows + 1) * intervalMs) / 1000));

  const grant = (lease: string): Turn => {
    const stopRenewing = renewWhileHeld(
      leaseMs,
      () => renewLease.run(redis, scriptKeys, [lease, leaseMs]),
      (error) => logger?.warn({ err: String(error) }, "upstream pacer: lease renewal failed"),
    );
    let finished = false;
    return {
      granted: true,
      finish(report?: WindowReport) {
        if (finished) return;
        finished = true;
        stopRenewing();
        finishTurn
          .run(redis, scriptKeys, finishArgs(lease, report))
          .catch((error: unknown) =>
            logger?.warn({ err: String(error) }, "upstream pacer: could not record a finished request"),
          );
      },
    };
  };

  return {
    async turn(request: TurnRequest): Promise<Turn> {
      const lease = randomUUID();
      const priority = request.priority ?? "interactive";
      const account = request.account ?? "";
      const waitUntilMs =
        priority === "interactive"
          ? Math.min(request.waitUntilMs, Date.now() + interactiveWaitMs)
          : request.waitUntilMs;
      for (;;) {
        let answer: { code: number; ms: number; flows: number };
        try {
          answer = await take(lease, priority, account);
        } catch (error) {
          logger?.warn({ err: String(error) }, "upstream pacer: shared state unreachable");
          return { granted: false, reason: "pacer_unavailable", retryAfterSeconds: 1 };
        }
        if (answer.code === 0) {
          settings.onGranted?.(priority);
          return grant(lease);
        }
        if (answer.code === 2)
          return {
            granted: false,
            reason: "window_spent",
            retryAfterSeconds: Math.max(1, Math.ceil(answer.ms / 1000)),
          };
        // Jitter, so replicas waiting on the same place do not ask in lockstep.
        const sleepMs = Math.min(answer.ms, MAX_POLL_MS) + Math.floor(Math.random() * 20);
        if (Date.now() + sleepMs > waitUntilMs)
          return { granted: false, reason: "queue_full", retryAfterSeconds: retryAfterOf(answer) };
        await new Promise((resolve) => setTimeout(resolve, sleepMs));
      }
    },
  };
}

function finishArgs(lease: string, report: WindowReport | undefined): string[] {
  return [
    lease,
    report?.remaining === undefined ? "" : String(report.remaining),
    report?.resetAtMs === undefined ? "" : String(report.resetAtMs),
    report?.rateLimited ? "1" : "0",
  ];
}

function checkSettings(settings: PacerSettings): void {
  if (!(settings.requestsPerSecond > 0)) throw new Error("upstream pacer: requestsPerSecond must be above 0");
  if (settings.interactiveWaitMs !== undefined && !(settings.interactiveWaitMs > 0))
    throw new Error("upstream pacer: interactiveWaitMs must be above 0");
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1)
    throw new Error("upstream pacer: concurrency must be a whole number of at least 1");
  for (const share of Object.values(settings.backgroundShares ?? {}))
    if (!(share >= 0 && share <= 1))
      throw new Error("upstream pacer: a background share must be from 0 to 1");
}

/**
 * The pacer: every HTTP request to the upstream, from every adapter replica, first asks it for a
 * turn, and tells it afterwards what the upstream said about its window. It keeps the whole product
 * inside one budget (docs/upstream.md#rate-limits): a request rate, a cap on requests in flight, and
 * the upstream's own window while it reports one as spent.
 *
 * A turn is asked for with the moment the caller stops waiting, its traffic class and the account it
 * is for: the shared pacer (redis-pacer.ts) is a scheduler that serves interactive requests before
 * monitors and exports, and within a class gives each account a fair share
 * (docs/upstream.md#fair-shares).
 */
/**
 * Who a request serves: customers waiting on HTTP or MCP (`interactive`), or background work. The
 * scheduler serves interactive first and gives background what is left, never nothing.
 */
export type TrafficClass = "interactive" | "monitors" | "exports";

export interface TurnRequest {
  /** Epoch ms after which waiting for a turn is pointless: the call's deadline, less one attempt's floor. */
  readonly waitUntilMs: number;
  /** Default interactive. */
  readonly priority?: TrafficClass;
  /**
   * Whose turn it is, for fair shares within the class: the portal account, or `key:<id>` for an
   * operator's key (an account of its own). Requests that do not say share one flow.
   */
  readonly account?: string;
}

/** What the upstream said about its window in one answer's headers (client.ts, `readWindowHeaders`). */
export interface WindowReport {
  /** `x-ratelimit-remaining`, when sent. */
  readonly remaining?: number;
  /** When the window ends, epoch ms, from `x-ratelimit-reset-at` or `x-ratelimit-reset`. */
  readonly resetAtMs?: number;
  /** The answer was a 429: the window is spent until `resetAtMs` (a minute when unknown). */
  readonly rateLimited: boolean;
}

export type Turn =
  | {
      readonly granted: true;
      /** Ends the turn (frees its place in flight) and records what the answer said; call once. */
      finish(report?: WindowReport): void;
    }
  | {
      readonly granted: false;
      /**
       * `window_spent`: the upstream said so, the request was not sent; `queue_full`: our own budget
       * is spent: no turn came within the wait allowed; `pacer_unavailable`: the shared state could
       * not be read.
       */
      readonly reason: "window_spent" | "queue_full" | "pacer_unavailable";
      /** When a turn can be expected, in whole seconds (at least 1): the caller's `Retry-After`. */
      readonly retryAfterSeconds: number;
    };

export interface UpstreamPacer {
  turn(request: TurnRequest): Promise<Turn>;
}

/** No pacing at all: for tests of the client and for a lone adapter pointed at a private upstream. */
export const unpaced: UpstreamPacer = {
  turn: async () => ({ granted: true, finish() {} }),
};
