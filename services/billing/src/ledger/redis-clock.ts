/**
 * Billing's reading of Redis' clock: the local clock plus an offset measured with `TIME` at start and
 * every minute after. Admission deadlines are compared with Redis' own clock inside the script
 * (admission-scripts.ts), so they must be stated on it: a billing host whose clock runs behind
 * Redis' would otherwise refuse every admission as late. A measurement whose round trip was slow is
 * dropped (its error would be as large); until one succeeds, the offset is 0.
 */
import { type Logger, type Redis, startLoop } from "@rda/service-kit";

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
