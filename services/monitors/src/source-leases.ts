/**
 * Per-source poll state in Redis, beside the monitors': the high-water mark (the newest second
 * polled), when the next poll is due and when the source was last swept back; and the lease of the
 * replica polling it now (service-kit's one lease). A replica polls a source only while it holds
 * the lease, and writes the poll's result back in the same script that checks the lease is still
 * its own, so of two replicas racing for a source exactly one polls it, and a replica whose lease
 * ran out (it stalled; another took over) cannot write its stale state back.
 */
import { LEASE_STILL_HELD, type Lease, luaScript, type Redis, takeLease } from "@rda/service-kit";
import type { MonitorKeys } from "./monitor-keys.ts";

export interface SourceState {
  /** The newest `created_utc` second the live poll has seen; null until the first poll. */
  readonly hwm: number | null;
  /** Epoch ms the next poll is due. */
  readonly next_poll_at: number;
  /** Epoch ms of the last look-back sweep for items the archive ingested late (poller.ts). */
  readonly swept_at?: number;
}

export interface HeldSource {
  readonly key: string;
  readonly state: SourceState;
  readonly lease: Lease;
}

// KEYS: lease, state. ARGV: owner, then the state's fields and values. Writes the poll's result
// and frees the lease, only while the lease is still the owner's. A wake that came during the poll
// (a monitor added meanwhile, which the poll did not see) makes the source due now instead.
const RELEASE = luaScript(`${LEASE_STILL_HELD}
local woken = redis.call('HGET', KEYS[2], 'woken')
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
if woken then redis.call('HSET', KEYS[2], 'next_poll_at', 0) end
redis.call('DEL', KEYS[1])
return 1`);

// KEYS: lease, state. Makes the source due now. While a replica polls it, the wake is kept for that
// poll's release (RELEASE), since the poll started before the monitor that woke it was there.
const WAKE = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[2], 'woken', 1)
  return 0
end
local due = tonumber(redis.call('HGET', KEYS[2], 'next_poll_at'))
if due == nil or due == 0 then return 0 end
redis.call('HSET', KEYS[2], 'next_poll_at', 0)
return 1`);

export class SourceLeases {
  readonly #redis: Redis;
  readonly #keys: MonitorKeys;
  readonly #owner: string;
  readonly #leaseMs: number;

  constructor(redis: Redis, keys: MonitorKeys, owner: string, leaseMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
  }

  /** The source's lease when it is due and free (or its holder's lease ran out); undefined otherwise. */
  async claimIfDue(key: string, now: number): Promise<HeldSource | undefined> {
    if ((await this.read(key)).next_poll_at > now) return undefined;
    const lease = await takeLease(this.#redis, this.#keys.pollLease(key), this.#owner, this.#leaseMs);
    if (lease === undefined) return undefined;
    // Read again under the lease: a replica that just finished a poll may have moved it on.
    const state = await this.read(key);
    if (state.next_poll_at > now) {
      await lease.release();
      return undefined;
    }
    return { key, state, lease };
  }

  /** Records the poll's result and frees the source; false when the lease was lost meanwhile. */
  async release(
    held: HeldSource,
    hwm: number | null,
    nextPollAt: number,
    sweptAt = held.state.swept_at,
  ): Promise<boolean> {
    const fields = [
      "next_poll_at",
      nextPollAt,
      ...(hwm === null ? [] : ["hwm", hwm]),
      ...(sweptAt === undefined ? [] : ["swept_at", sweptAt]),
    ];
    const keys = [held.lease.key, this.#keys.poll(held.key)];
    return (await RELEASE.run(this.#redis, keys, [held.lease.owner, ...fields])) === 1;
  }

  /**
   * Makes the source due now (a monitor was added or resumed and should not wait out an idle
   * source's delay, nor the interval of the other monitors of its source). When a replica is polling
   * the source meanwhile, that poll's release makes it due now.
   */
  async wake(key: string): Promise<void> {
    await WAKE.run(this.#redis, [this.#keys.pollLease(key), this.#keys.poll(key)], []);
  }

  /** The source's state; a source never polled is due now, from the start. */
  async read(key: string): Promise<SourceState> {
    const raw = await this.#redis.hgetall(this.#keys.poll(key));
    return {
      hwm: raw.hwm === undefined ? null : Number(raw.hwm),
      next_poll_at: Number(raw.next_poll_at ?? 0),
      ...(raw.swept_at === undefined ? {} : { swept_at: Number(raw.swept_at) }),
    };
  }
}
