/**
 * The one lease (docs/architecture.md#background-work): one replica at a time works on a thing (a
 * monitor's source, a monitor's webhook queue, a notice's crossing, an export job), and another
 * takes over when it dies. A lease is a Redis key holding its owner's name for `ttlMs` (`SET NX PX`); it ends by
 * itself when its holder stops renewing it, and is freed early only by its owner.
 *
 * A holder that stalled past its lease (another took over) must not write stale state back, so a
 * write made under a lease checks, in the same Lua script as the write, that the lease is still its
 * own: such scripts take the lease as KEYS[1], the owner as ARGV[1], and begin with
 * `LEASE_STILL_HELD`.
 */
import { randomUUID } from "node:crypto";
import { luaScript } from "./lua-script.ts";
import type { Redis } from "./redis.ts";

/** Lua: ends the script (returning 0) unless KEYS[1] is still held by ARGV[1]. */
export const LEASE_STILL_HELD = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end";

// KEYS: lease. ARGV: owner.
const releaseScript = luaScript(`${LEASE_STILL_HELD}
return redis.call('DEL', KEYS[1])`);

// KEYS: lease. ARGV: owner, ttl (ms).
const renewScript = luaScript(`${LEASE_STILL_HELD}
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);

export interface Lease {
  /** The lease's Redis key, for scripts that write under it (KEYS[1]). */
  readonly key: string;
  /** Its holder's name (ARGV[1]). */
  readonly owner: string;
  /**
   * Gives it its whole time again from now, if it is still this holder's; false when it ran out
   * (another may hold it now): the holder has lost it and must stop writing.
   */
  renew(): Promise<boolean>;
  /** Frees it now, if it is still this holder's (a lease that ran out and was taken stays taken). */
  release(): Promise<void>;
}

/** The lease on `key` for `owner` when it was free; undefined when another holds it. */
export async function takeLease(
  redis: Redis,
  key: string,
  owner: string,
  ttlMs: number,
): Promise<Lease | undefined> {
  if ((await redis.set(key, owner, "PX", ttlMs, "NX")) !== "OK") return undefined;
  return {
    key,
    owner,
    async renew() {
      return (await renewScript.run(redis, [key], [owner, ttlMs])) === 1;
    },
    async release() {
      await releaseScript.run(redis, [key], [owner]);
    },
  };
}

/**
 * Keeps a lease alive while its holder works: `renew` runs every third of `ttlMs` until the returned
 * function is called, so one late renewal never lets a live holder's lease lapse, while a holder
 * that died stops renewing and loses it within `ttlMs`. A failed renewal is only reported: the lease
 * then lapses by itself, which is all a holder that cannot reach its store can expect. This is the
 * one renewal timer; the leases renewed this way are this module's (an export job's), an upstream
 * turn's place in flight, an upstream fetch's claim and a consumer message's ack wait.
 */
export function renewWhileHeld(
  ttlMs: number,
  renew: () => unknown,
  onFailure: (error: unknown) => void,
): () => void {
  const timer = setInterval(
    () => {
      Promise.resolve().then(renew).catch(onFailure);
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Runs `work` under the lease on `key`, freeing it afterwards however the work ended; `busy` when
 * another holder has it. The owner is a fresh name: two calls on one replica exclude each other too.
 */
export async function withLease<T>(
  redis: Redis,
  key: string,
  ttlMs: number,
  work: (lease: Lease) => Promise<T>,
): Promise<{ readonly held: true; readonly value: T } | { readonly held: false }> {
  const lease = await takeLease(redis, key, randomUUID(), ttlMs);
  if (lease === undefined) return { held: false };
  try {
    return { held: true, value: await work(lease) };
  } finally {
    await lease.release();
  }
}
