/**
 * Per-source state in a JetStream key-value bucket: the high-water mark (the newest second polled),
 * when the next poll is due, and the lease of the replica polling it now. Every change is an update
 * checked against the revision read, so of two replicas racing for a source exactly one wins it, and
 * a replica whose lease ran out (it stalled; another took over) cannot write its stale state back.
 */
import { type KV, Kvm } from "@nats-io/kv";
import { ensureKvBucket, jetstreamManager, type NatsConnection } from "@rda/service-kit";

export interface SourceState {
  /** The newest `created_utc` second the live poll has seen; null until the first poll. */
  readonly hwm: number | null;
  /** Epoch ms the next poll is due. */
  readonly next_poll_at: number;
  /** The replica polling now, and until when its lease holds (epoch ms). */
  readonly lease: { readonly owner: string; readonly until: number } | null;
  /** Epoch ms of the last look-back sweep for items the archive ingested late (poller.ts). */
  readonly swept_at?: number;
}

export interface HeldSource {
  readonly key: string;
  readonly state: SourceState;
  readonly revision: number;
}

const FRESH: SourceState = { hwm: null, next_poll_at: 0, lease: null };

/** The bucket's name for a namespace (letters, digits, `_` and `-`, as JetStream requires). */
export function sourceBucketName(namespace: string): string {
  return namespace === ""
    ? "MONITOR_SOURCES"
    : `${namespace.replace(/[^A-Za-z0-9_-]/g, "_")}_MONITOR_SOURCES`;
}

export class SourceLeases {
  readonly #kv: KV;
  readonly #owner: string;
  readonly #leaseMs: number;

  private constructor(kv: KV, owner: string, leaseMs: number) {
    this.#kv = kv;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
  }

  static async open(
    nats: NatsConnection,
    namespace: string,
    owner: string,
    leaseMs: number,
    replicas: number,
  ): Promise<SourceLeases> {
    // File storage (the helper's): high-water marks survive a NATS restart as well as ours.
    const bucket = sourceBucketName(namespace);
    await ensureKvBucket(await jetstreamManager(nats), bucket, 1, replicas);
    const kv = await new Kvm(nats).open(bucket, { allow_direct: true });
    return new SourceLeases(kv, owner, leaseMs);
  }

  /** The source's lease when it is due and free (or its holder's lease ran out); undefined otherwise. */
  async claimIfDue(key: string, now: number): Promise<HeldSource | undefined> {
    const entry = await this.#kv.get(key);
    if (entry === null || entry.operation !== "PUT") {
      await this.#kv.create(key, JSON.stringify(FRESH)).catch(() => undefined);
      return undefined; // Claimed on the next turn, by whichever replica reads it first.
    }
    const state = entry.json<SourceState>();
    if (state.next_poll_at > now) return undefined;
    if (state.lease !== null && state.lease.until > now) return undefined;
    const claimed: SourceState = { ...state, lease: { owner: this.#owner, until: now + this.#leaseMs } };
    try {
      const revision = await this.#kv.update(key, JSON.stringify(claimed), entry.revision);
      return { key, state: claimed, revision };
    } catch {
      return undefined; // Another replica updated it first: it is theirs this turn.
    }
  }

  /** Records the poll's result and frees the source; false when the lease was lost meanwhile. */
  async release(
    held: HeldSource,
    hwm: number | null,
    nextPollAt: number,
    sweptAt = held.state.swept_at,
  ): Promise<boolean> {
    const next: SourceState = {
      hwm,
      next_poll_at: nextPollAt,
      lease: null,
      ...(sweptAt === undefined ? {} : { swept_at: sweptAt }),
    };
    try {
      await this.#kv.update(held.key, JSON.stringify(next), held.revision);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Makes the source due now (a monitor was added or resumed and should not wait out an idle
   * source's delay). A replica polling it meanwhile wins: its own update decides the next poll.
   */
  async wake(key: string): Promise<void> {
    const entry = await this.#kv.get(key);
    if (entry === null || entry.operation !== "PUT") return;
    const state = entry.json<SourceState>();
    if (state.lease !== null || state.next_poll_at <= Date.now()) return;
    await this.#kv
      .update(key, JSON.stringify({ ...state, next_poll_at: 0 }), entry.revision)
      .catch(() => undefined);
  }

  async read(key: string): Promise<SourceState | undefined> {
    const entry = await this.#kv.get(key);
    return entry === null || entry.operation !== "PUT" ? undefined : entry.json<SourceState>();
  }
}
