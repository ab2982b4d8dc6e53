/**
 * The pacer shared by every adapter replica, kept in Redis: one script takes a turn (the rate, the
 * cap in flight and the upstream's window, decided together on Redis' clock), one ends it and
 * records the upstream's window. Each request in flight holds a short lease that its replica renews
 * while the request is out, so a replica killed mid-request frees its place within one lease.
 */
import { randomUUID } from "node:crypto";
import type { Logger, Redis, UpstreamPacerKeys } from "@rda/service-kit";
import type { Turn, TurnRequest, UpstreamPacer, WindowReport } from "./pacer.ts";
import { FINISH_TURN, RENEW_LEASE, TAKE_TURN } from "./pacer-scripts.ts";
import { runScript } from "./run-script.ts";

export interface PacerSettings {
  /** Upstream requests per second, every replica together. */
  readonly requestsPerSecond: number;
  /** Upstream requests in flight, every replica together. */
  readonly concurrency: number;
  /** How long a place in flight lasts without renewal; renewed every third of it. Default 3000. */
  readonly leaseMs?: number;
}

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
  const scriptKeys = [keys.state, keys.leases];

  const take = async (lease: string) => {
    const args = [lease, intervalMs, settings.concurrency, leaseMs];
    const [code, ms] = (await runScript(redis, TAKE_TURN, scriptKeys, args)) as [number, number];
    return { code, ms };
  };

  const grant = (lease: string): Turn => {
    const renew = setInterval(
      () => {
        runScript(redis, RENEW_LEASE, scriptKeys, [lease, leaseMs]).catch((error: unknown) =>
          logger?.warn({ err: String(error) }, "upstream pacer: lease renewal failed"),
        );
      },
      Math.floor(leaseMs / 3),
    );
    let finished = false;
    return {
      granted: true,
      finish(report?: WindowReport) {
        if (finished) return;
        finished = true;
        clearInterval(renew);
        runScript(redis, FINISH_TURN, scriptKeys, finishArgs(lease, report)).catch((error: unknown) =>
          logger?.warn({ err: String(error) }, "upstream pacer: could not record a finished request"),
        );
      },
    };
  };

  return {
    async turn(request: TurnRequest): Promise<Turn> {
      const lease = randomUUID();
      for (;;) {
        let answer: { code: number; ms: number };
        try {
          answer = await take(lease);
        } catch (error) {
          logger?.warn({ err: String(error) }, "upstream pacer: shared state unreachable");
          return { granted: false, reason: "pacer_unavailable", retryAfterSeconds: 1 };
        }
        if (answer.code === 0) return grant(lease);
        const retryAfterSeconds = Math.max(1, Math.ceil(answer.ms / 1000));
        if (answer.code === 2) return { granted: false, reason: "window_spent", retryAfterSeconds };
        // Jitter, so replicas waiting on the same place do not ask in lockstep.
        const sleepMs = Math.min(answer.ms, MAX_POLL_MS) + Math.floor(Math.random() * 20);
        if (Date.now() + sleepMs > request.waitUntilMs)
          return { granted: false, reason: "queue_full", retryAfterSeconds };
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
  if (!Number.isInteger(settings.concurrency) || settings.concurrency < 1)
    throw new Error("upstream pacer: concurrency must be a whole number of at least 1");
}
