/**
 * Export jobs in Redis: one JSON record per job, changed only by compare-and-set on its version, so
 * the gateway-facing commands and the workers (on any replica) never overwrite each other's change.
 * An account's active jobs (queued, running, paused) are a set, bounded by
 * EXPORT_LIMITS.maxActivePerAccount (job-owner.ts says whose set a job joins).
 * The record carries the checkpoint the worker advances after every page.
 *
 * A worker runs a job under the job's lease (service-kit's lease, `jobLeases`): every write it makes
 * to the record checks, in the same script, that the lease is still its own, so a worker that
 * stalled past its lease (another replica took the job over) writes nothing back.
 */
import { randomBytes } from "node:crypto";
import type { ExportFile, ExportManifest, ExportQuery, ExportQuote, ExportState } from "@rda/contracts";
import { LEASE_STILL_HELD, luaScript, type Redis, type RequestTokenMark, takeLease } from "@rda/service-kit";
import type { PageWriter } from "./result-file.ts";

export interface Checkpoint {
  /** Pages fetched and written (each charged once). */
  pages: number;
  rows: number;
  /** The next page is asked `after` this created_utc. */
  cursor: number;
  hasMore: boolean;
  /** Ids of the rows of the last second written, dropped if a later page repeats them. */
  seamIds: string[];
  /** The try of the next page; a refunded try is never charged again, so a retry takes the next. */
  attempt: number;
  /** The page debit asked and not yet settled or refunded; refunded if the job ends first. */
  inflightDebit: string | null;
  /**
   * The last kept page's debit until its settle is known to have ended it: a worker that died
   * between keeping the page and settling it leaves it here, for the next run to settle.
   */
  unsettledDebit: string | null;
  /** Which lease holder wrote which pages, so the file is made of the parts the checkpoint counted. */
  writers: PageWriter[];
  credits: number;
  failures: number;
  firstCreated: number | null;
  lastCreated: number | null;
}

export interface JobRecord {
  version: number;
  id: string;
  keyId: string;
  state: ExportState;
  /**
   * Who paused it: the caller (stays paused), a zero balance (retried until credits arrive), or its
   * key's revocation (stays paused for good: revoked-keys.ts).
   */
  pausedBy: "caller" | "balance" | "revoked" | null;
  reason: string | null;
  /** Set when the job failed at its credit ceiling: it may be resumed with a higher one. */
  stoppedAtCeiling?: boolean;
  query: ExportQuery;
  quote: ExportQuote;
  /**
   * Whose active set the job counts in (job-owner.ts), set when it starts: a job never started
   * counts in none.
   */
  owner?: string;
  /** Bumped each time the job is put on the work queue; older queue messages are dropped. */
  run: number;
  /**
   * The request tokens of the starts and resumes that queued it (service-kit's request-tokens.ts),
   * written with the change they made: the same command again answers the job as it is.
   */
  requestTokens?: RequestTokenMark[];
  checkpoint: Checkpoint;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string | null;
  manifest: ExportManifest | null;
  file: ExportFile | null;
}

export function exportKeys(namespace: string) {
  const root = namespace === "" ? "rda" : `${namespace}:rda`;
  return {
    job: (id: string) => `${root}:export:{${id}}`,
    /** The replica running the job now (service-kit's lease), beside the record in its slot. */
    jobLease: (id: string) => `${root}:export:{${id}}:lease`,
    /** An owner's active jobs: an account id, or a key id for a key without an account. */
    activeJobs: (owner: string) => `${root}:exports:active:{${owner}}`,
    /** A key's exports by the epoch ms they were made, for its list; the newest are kept. */
    keyJobs: (keyId: string) => `${root}:exports:by-key:{${keyId}}`,
    /** Sorted set of done jobs by the epoch ms their file expires. */
    expiring: `${root}:exports:expiring`,
    /** Quotes a key asked in one minute (a counter that expires with its minute). */
    quotes: (keyId: string, minute: number) => `${root}:exports:quotes:{${keyId}}:${minute}`,
    /** The job a create with this request token made (its id), for the replay window. */
    requested: (keyId: string, token: string) => `${root}:exports:requested:{${keyId}}:${token}`,
  };
}
export type ExportKeys = ReturnType<typeof exportKeys>;

/**
 * The record's compare-and-set, for the record at `record` and the arguments at `version`, `json`,
 * `ttl`: -1 when it is gone, 2 when its version moved on (read it again), 1 when stored.
 */
const compareAndSetOf = (record: string, version: string, json: string, ttl: string) => `
local current = redis.call('GET', ${record})
if not current then return -1 end
if cjson.decode(current).version ~= tonumber(${version}) then return 2 end
redis.call('SET', ${record}, ${json}, 'KEEPTTL')
if tonumber(${ttl}) > 0 then redis.call('EXPIRE', ${record}, ${ttl}) end
return 1
`;

const ADD_ACTIVE = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
`;

/** Adds a job to its key's list, keeps the newest ARGV[3], and renews the list's lifetime. */
const REMEMBER = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

// KEYS: record, the request token's (none: a create without one). ARGV: json, ttl (s), id, the
// token's ttl (s). Writes the job and what its token made in one step, unless the token made a job
// already: then that job's id, and nothing written.
const CREATE = `
if KEYS[2] then
  local made = redis.call('GET', KEYS[2])
  if made then return made end
  redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
`;

// KEYS: record. ARGV: version, json, ttl (s).
const compareAndSet = luaScript(compareAndSetOf("KEYS[1]", "ARGV[1]", "ARGV[2]", "ARGV[3]"));
// KEYS: lease, record. ARGV: owner, version, json, ttl (s). 0 when the lease is no longer the owner's.
const compareAndSetUnderLease = luaScript(
  `${LEASE_STILL_HELD}\n${compareAndSetOf("KEYS[2]", "ARGV[2]", "ARGV[3]", "ARGV[4]")}`,
);
const createJob = luaScript(CREATE);
const addActive = luaScript(ADD_ACTIVE);
const rememberJob = luaScript(REMEMBER);

export class JobConflict extends Error {}

/** A worker's write refused: its lease on the job ran out, and another replica may run it now. */
export class JobLeaseLost extends Error {}

/** Jobs kept in a key's list; older ones leave it (their records expire on their own). */
export const KEPT_PER_KEY = 100;
/** A list nobody adds to is dropped after the longest a job record can live (30 days). */
const LIST_LIFETIME_MS = 31 * 86_400_000;

/** A create's request token, and how long what it made is answered. */
export interface CreateToken {
  readonly token: string;
  readonly ttlSeconds: number;
}

export interface JobStore {
  /**
   * Stores a new job; with a request token, only if that token made no job before, and noting that
   * it made this one in the same step. Answers the id of the job the token made before, if it did.
   */
  create(record: JobRecord, ttlSeconds: number, requested?: CreateToken): Promise<string | undefined>;
  /** The id of the job a create with this request token made, within its window. */
  requestedBy(keyId: string, token: string): Promise<string | undefined>;
  get(id: string): Promise<JobRecord | undefined>;
  /**
   * Applies `change` to the current record and stores it, retrying on a concurrent change. `change`
   * returns the new record, or undefined to leave it as it is. `ttlSeconds` > 0 sets its lifetime.
   * Under a lease (`jobLeases`), a write throws JobLeaseLost once the lease is no longer the holder's.
   */
  update(
    id: string,
    change: (record: JobRecord) => JobRecord | undefined,
    ttlSeconds?: number,
  ): Promise<JobRecord | undefined>;
  /** Counts the job among its owner's active jobs; false when the owner is at its limit. */
  activate(owner: string, id: string, limit: number): Promise<boolean>;
  /** Takes the job out of its owner's active jobs. */
  deactivate(record: Pick<JobRecord, "id" | "keyId" | "owner">): Promise<void>;
  /** Adds a new job to its key's list (the newest EXPORT_LIST_LIMIT are kept). */
  remember(record: Pick<JobRecord, "id" | "keyId">, atMs: number): Promise<void>;
  /** The key's jobs that still have a record, newest first. */
  listForKey(keyId: string, limit: number): Promise<JobRecord[]>;
  scheduleExpiry(id: string, atMs: number): Promise<void>;
  dueForExpiry(nowMs: number): Promise<string[]>;
  forgetExpiry(id: string): Promise<void>;
  /** Counts one more quote of the key in the current minute; answers the minute's count so far. */
  countQuote(keyId: string, nowMs: number): Promise<number>;
}

/** The record's lease, as its holder writes under it. */
interface HeldLease {
  readonly key: string;
  readonly owner: string;
}

export function redisJobStore(redis: Redis, keys: ExportKeys, lease?: HeldLease): JobStore {
  const store = (id: string, version: number, json: string, ttlSeconds: number) =>
    lease === undefined
      ? compareAndSet.run(redis, [keys.job(id)], [version, json, ttlSeconds])
      : compareAndSetUnderLease.run(
          redis,
          [lease.key, keys.job(id)],
          [lease.owner, version, json, ttlSeconds],
        );
  return {
    async create(record, ttlSeconds, requested) {
      const made = await createJob.run(
        redis,
        requested === undefined
          ? [keys.job(record.id)]
          : [keys.job(record.id), keys.requested(record.keyId, requested.token)],
        // A token is never kept longer than its job: it always names a job that exists.
        [JSON.stringify(record), ttlSeconds, record.id, Math.min(ttlSeconds, requested?.ttlSeconds ?? 0)],
      );
      return typeof made === "string" ? made : undefined;
    },
    async requestedBy(keyId, token) {
      return (await redis.get(keys.requested(keyId, token))) ?? undefined;
    },
    async get(id) {
      const text = await redis.get(keys.job(id));
      return text === null ? undefined : (JSON.parse(text) as JobRecord);
    },
    async update(id, change, ttlSeconds = 0) {
      for (let tries = 0; tries < 20; tries++) {
        const current = await this.get(id);
        if (current === undefined) return undefined;
        const next = change(structuredClone(current));
        if (next === undefined) return current;
        next.version = current.version + 1;
        const stored = await store(id, current.version, JSON.stringify(next), ttlSeconds);
        if (stored === 1) return next;
        if (stored === -1) return undefined;
        if (stored === 0)
          throw new JobLeaseLost(`export ${id}: the lease ran out; another replica may run it`);
      }
      throw new JobConflict(`export ${id} changed too often to update`);
    },
    async activate(owner, id, limit) {
      return (await addActive.run(redis, [keys.activeJobs(owner)], [id, limit])) === 1;
    },
    async deactivate(record) {
      if (record.owner !== undefined) await redis.srem(keys.activeJobs(record.owner), record.id);
    },
    async remember(record, atMs) {
      const list = keys.keyJobs(record.keyId);
      await rememberJob.run(redis, [list], [atMs, record.id, KEPT_PER_KEY, LIST_LIFETIME_MS]);
    },
    async listForKey(keyId, limit) {
      const list = keys.keyJobs(keyId);
      const ids = await redis.zrevrange(list, 0, limit - 1);
      if (ids.length === 0) return [];
      const texts = await Promise.all(ids.map((id) => redis.get(keys.job(id))));
      const gone = ids.filter((_, i) => texts[i] === null);
      if (gone.length > 0) await redis.zrem(list, ...gone);
      return texts.flatMap((text) => (text === null ? [] : [JSON.parse(text) as JobRecord]));
    },
    async scheduleExpiry(id, atMs) {
      await redis.zadd(keys.expiring, atMs, id);
    },
    async dueForExpiry(nowMs) {
      return redis.zrangebyscore(keys.expiring, "-inf", nowMs, "LIMIT", 0, 100);
    },
    async forgetExpiry(id) {
      await redis.zrem(keys.expiring, id);
    },
    async countQuote(keyId, nowMs) {
      const key = keys.quotes(keyId, Math.floor(nowMs / 60_000));
      const [[, count]] = (await redis.multi().incr(key).expire(key, 120).exec()) as [[null, number]];
      return count;
    },
  };
}

/** One job held by this replica: its record written only under the lease, and the lease's upkeep. */
export interface HeldJob {
  /** The job store whose every record write checks the lease (JobLeaseLost when it ran out). */
  readonly jobs: JobStore;
  /** The holder's name, which names the parts it writes (result-file.ts `partName`). */
  readonly writer: string;
  /** False once the lease ran out (another replica may hold it now). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export interface JobLeases {
  /** How long a lease lasts unless renewed: a holder that died loses its job within it. */
  readonly ttlMs: number;
  /** The job's lease for this replica; undefined while another holder has it. */
  take(id: string): Promise<HeldJob | undefined>;
}

export function jobLeases(redis: Redis, keys: ExportKeys, ttlMs: number): JobLeases {
  return {
    ttlMs,
    async take(id) {
      // A fresh name each time: a replica that lost a job and takes it again writes new parts.
      const lease = await takeLease(redis, keys.jobLease(id), randomBytes(8).toString("hex"), ttlMs);
      if (lease === undefined) return undefined;
      return {
        jobs: redisJobStore(redis, keys, lease),
        writer: lease.owner,
        renew: () => lease.renew(),
        release: () => lease.release(),
      };
    },
  };
}
