/** What every ledger operation needs: the Redis client, the namespace's keys and a clock. */
import type { Redis, RedisKeys } from "@rda/service-kit";

export interface LedgerContext {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  /** Epoch milliseconds; injectable so tests can pin journal times. */
  readonly now: () => number;
}

const DAY_SECONDS = 86_400;

/**
 * How long per-request markers live. A debit marker must outlive every refund that can still arrive:
 * the refund stream keeps messages 7 days (REFUND_STREAM.maxAgeMs), so 14 days leaves a margin.
 */
export const MARKER_TTL_SECONDS = { debit: 14 * DAY_SECONDS, topUp: 30 * DAY_SECONDS } as const;

/** A Lua reply `{outcome, n1, n2}` as a tuple; Redis turns Lua numbers into integers. */
export function scriptReply(reply: unknown): [outcome: string, ...numbers: number[]] {
  if (!Array.isArray(reply) || typeof reply[0] !== "string") {
    throw new Error(`unexpected ledger script reply: ${JSON.stringify(reply)}`);
  }
  return reply as [string, ...number[]];
}
