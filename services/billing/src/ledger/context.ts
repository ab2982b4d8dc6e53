/** What every ledger operation needs: the Redis client, the namespace's keys and a clock. */
import { LEDGER_RETENTION } from "@rda/contracts";
import { type Logger, type Redis, type RedisKeys, startLoop } from "@rda/service-kit";

export interface LedgerContext {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  /** Epoch milliseconds; injectable so tests can pin journal times. */
  readonly now: () => number;
}

const DAY_SECONDS = 86_400;

/**
 * How long per-request markers live. A debit record must outlive every refund that can still arrive
 * through the refund stream; both values, and that order, are `LEDGER_RETENTION`'s (@rda/contracts).
 */
export const MARKER_TTL_SECONDS = {
  debit: LEDGER_RETENTION.debitRecordTtlSeconds,
  topUp: LEDGER_RETENTION.topUpMarkerTtlSeconds,
} as const;

/** Usage days are kept a little over a year, long enough for a yearly look back. */
export const USAGE_TTL_SECONDS = 400 * DAY_SECONDS;

/** The UTC day (YYYY-MM-DD) an instant falls on: the unit of the usage counters. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The name of a key's usage day without the day: scripts append the day they count on. */
export function usagePrefix(context: LedgerContext, keyId: string): string {
  return context.keys.usageDay(keyId, "");
}

/** A Lua reply `{outcome, ...values}` as a tuple; Redis turns Lua numbers into integers. */
export function scriptReply<T extends (number | string)[] = number[]>(
  reply: unknown,
): [outcome: string, ...values: T] {
  if (!Array.isArray(reply) || typeof reply[0] !== "string") {
    throw new Error(`unexpected ledger script reply: ${JSON.stringify(reply)}`);
  }
  return reply as [string, ...T];
}

/**
 * Billing's reading of Redis' clock: the local clock plus an offset measured with `TIME` at start and
 * every minute after. Admission deadlines are compared with Redis' own clock inside the script
 * (admission-scripts.ts), so they must be stated on it: a billing host whose clock runs behind
 * Redis' would otherwise refuse every admission as late. A measurement whose round trip was slow is
 * dropped (its error would be as large); until one succeeds, the offset is 0.
 */
const REFRESH_MS = 60_000;
const MAX_ROUND_TRIP_MS = 50;

export interface RedisClock {
  /** Epoch milliseconds on Redis' clock, as far as billing can tell. */
  now(): number;
  stop(): Promise<void>;
}

export async function startRedisClock(redis: Redis, logger: Logger): Promise<RedisClock> {
  let offsetMs = 0;
  const measure = async () => {
    const sent = Date.now();
    const [seconds, micros] = await redis.time();
    const received = Date.now();
    if (received - sent > MAX_ROUND_TRIP_MS) return;
    offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + received) / 2;
  };
  const measureQuietly = () =>
    measure().catch((error: unknown) =>
      logger.warn({ err: String(error) }, "could not read Redis' clock; keeping the last offset"),
    );
  await measureQuietly();
  if (Math.abs(offsetMs) > 1_000) logger.warn({ offsetMs }, "billing's clock and Redis' disagree");
  const refresh = startLoop({ name: "Redis clock", everyMs: REFRESH_MS, turn: measureQuietly, logger });
  return { now: () => Date.now() + offsetMs, stop: () => refresh.stop() };
}
