/**
 * Monitor definitions and deliveries in Redis: records, the per-key and per-source indexes, each
 * monitor's items stream and the ids it already holds. Appending is one script per monitor, so an
 * item is delivered exactly once however often a poll is repeated (a replica that died mid-poll,
 * the backfill's last page overlapping the first live one).
 */
import { MONITOR_RETAINED_ITEMS } from "@rda/contracts";
import { luaScript, type Redis } from "@rda/service-kit";
import { type MonitorRecord, sourceKeyOf } from "./monitor.ts";
import type { MonitorKeys } from "./monitor-keys.ts";

/**
 * Items a monitor's stream and its delivered ids keep, at most (the retention, docs/api.md#monitors);
 * older ones are trimmed. The delivered ids are trimmed to the newest by `created_utc`: an id older
 * than the newest 100,000 cannot come back, as live polls skip items older than the live mark and a
 * backfill's pages only move forward.
 */
const MAX_ITEMS_PER_MONITOR = MONITOR_RETAINED_ITEMS;

// KEYS: items stream, delivered ids (sorted by created_utc). ARGV: max length, then triples of
// (item id, created_utc, item JSON). Returns the 1-based positions of the items appended (the
// others were delivered before).
const APPEND = `
local appended = {}
for i = 2, #ARGV, 3 do
  if redis.call('ZADD', KEYS[2], 'NX', ARGV[i + 1], ARGV[i]) == 1 then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'item', ARGV[i + 2])
    appended[#appended + 1] = (i + 1) / 3
  end
end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[1]) + 1))
return appended
`;

// KEYS: items stream, pull progress (hash). ARGV: XRANGE start, count. Reads a page and counts
// the items on it that no pull returned before (entry ids past the newest one returned so far).
const PULL_PAGE = `
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', ARGV[2])
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local mark_ms, mark_seq = parse(redis.call('HGET', KEYS[2], 'through') or '0-0')
local fresh = 0
for _, entry in ipairs(entries) do
  local ms, seq = parse(entry[1])
  if ms > mark_ms or (ms == mark_ms and seq > mark_seq) then fresh = fresh + 1 end
end
if fresh > 0 then
  redis.call('HSET', KEYS[2], 'through', entries[#entries][1])
  redis.call('HINCRBY', KEYS[2], 'items', fresh)
end
return entries
`;

// KEYS: record. ARGV: the record as read, the record to write. Writes only if nobody wrote between.
const REPLACE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

// KEYS: owner set, record, source set, sources, the set the limit counts (the account's, or the
// owner set again for a key with no account), and what the create's request token made (none: a
// create without one). ARGV: id, record JSON, limit, source key, what the token makes (JSON), its
// ttl (s). 1 created, 0 at the limit, or what the token made before (nothing written).
const CREATE = `
if KEYS[6] then
  local made = redis.call('GET', KEYS[6])
  if made then return made end
end
if redis.call('SCARD', KEYS[5]) >= tonumber(ARGV[3]) then return 0 end
if KEYS[6] then redis.call('SET', KEYS[6], ARGV[5], 'EX', ARGV[6]) end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[4])
return 1
`;

/** A create's request token, what it makes (JSON, answered to the same create again) and how long. */
export interface CreateToken {
  readonly token: string;
  readonly made: string;
  readonly ttlSeconds: number;
}

/** A create's outcome: made, refused at the limit, or what its request token made before. */
export type Created = "created" | "limit_reached" | { readonly madeBefore: string };

export interface ItemsPage {
  /** The posts or comments matched, as the poller stored them. */
  readonly items: Record<string, unknown>[];
  /** The cursor to pass next; unchanged when the page is empty. */
  readonly cursor: string | null;
}

export interface ItemCounts {
  readonly collected: number;
  readonly pulled: number;
}

export interface ListedItem {
  readonly id: string;
  readonly created_utc: number;
}

const appendScript = luaScript(APPEND);
const pullPageScript = luaScript(PULL_PAGE);
const replaceIfUnchangedScript = luaScript(REPLACE_IF_UNCHANGED);
const createScript = luaScript(CREATE);
// KEYS: the source's watchers, sources. ARGV: the source key. Drops the source only while nobody
// watches it, in one step: a CREATE landing between a separate count and the removal would leave its
// monitor watching a source no poller walks.
const forgetSourceIfUnwatchedScript = luaScript(`
if redis.call('SCARD', KEYS[1]) == 0 then return redis.call('SREM', KEYS[2], ARGV[1]) end
return 0
`);

export class MonitorStore {
  readonly #redis: Redis;
  readonly #keys: MonitorKeys;
  readonly #maxItems: number;

  constructor(redis: Redis, keys: MonitorKeys, maxItems = MAX_ITEMS_PER_MONITOR) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxItems = maxItems;
  }

  /**
   * Refused when the key's account (a key with no account: the key) already holds `limit` monitors.
   * With a request token, only when that token made nothing before, noting what it makes in the same
   * step; else what it made is answered and nothing is written.
   */
  async create(monitor: MonitorRecord, limit: number, requested?: CreateToken): Promise<Created> {
    const source = sourceKeyOf(monitor);
    const keys = [
      this.#keys.ownedBy(monitor.key_id),
      this.#keys.monitor(monitor.id),
      this.#keys.watching(source),
      this.#keys.sources,
      this.#limitSet(monitor),
      ...(requested === undefined ? [] : [this.#keys.requested(monitor.key_id, requested.token)]),
    ];
    const created = await createScript.run(this.#redis, keys, [
      monitor.id,
      JSON.stringify(monitor),
      limit,
      source,
      requested?.made ?? "",
      requested?.ttlSeconds ?? 0,
    ]);
    if (typeof created === "string") return { madeBefore: created };
    return created === 1 ? "created" : "limit_reached";
  }

  /** What a create with this request token made (as `CreateToken.made` said), within its window. */
  async requestedBy(keyId: string, token: string): Promise<string | undefined> {
    return (await this.#redis.get(this.#keys.requested(keyId, token))) ?? undefined;
  }

  /** How many monitors count towards the limit of this key's account (or of the key alone). */
  countTowardsLimit(owner: Pick<MonitorRecord, "key_id" | "account_id">): Promise<number> {
    return this.#redis.scard(this.#limitSet(owner));
  }

  #limitSet(owner: Pick<MonitorRecord, "key_id" | "account_id">): string {
    return owner.account_id !== undefined
      ? this.#keys.ownedByAccount(owner.account_id)
      : this.#keys.ownedBy(owner.key_id);
  }

  async get(id: string): Promise<MonitorRecord | undefined> {
    const raw = await this.#redis.get(this.#keys.monitor(id));
    return raw === null ? undefined : (JSON.parse(raw) as MonitorRecord);
  }

  /**
   * Applies `change` to the monitor as it stands now and writes it, unless another writer got there
   * first; then it reads again and applies `change` to that. So the poller moving a monitor's phase
   * and a caller's PATCH never undo each other, however they interleave. Undefined when the monitor
   * is gone (a monitor deleted meanwhile stays deleted).
   */
  async update(
    id: string,
    change: (current: MonitorRecord) => MonitorRecord,
  ): Promise<MonitorRecord | undefined> {
    const key = this.#keys.monitor(id);
    for (;;) {
      const raw = await this.#redis.get(key);
      if (raw === null) return undefined;
      const next = change(JSON.parse(raw) as MonitorRecord);
      if ((await replaceIfUnchangedScript.run(this.#redis, [key], [raw, JSON.stringify(next)])) === 1)
        return next;
    }
  }

  async listOwned(keyId: string): Promise<MonitorRecord[]> {
    const ids = await this.#redis.smembers(this.#keys.ownedBy(keyId));
    return (await this.#many(ids)).sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  }

  async watching(sourceKey: string): Promise<MonitorRecord[]> {
    return this.#many(await this.#redis.smembers(this.#keys.watching(sourceKey)));
  }

  sources(): Promise<string[]> {
    return this.#redis.smembers(this.#keys.sources);
  }

  /** Drops a source nobody watches any more (a watcher added meanwhile keeps it). */
  async forgetSourceIfUnwatched(sourceKey: string): Promise<void> {
    await forgetSourceIfUnwatchedScript.run(
      this.#redis,
      [this.#keys.watching(sourceKey), this.#keys.sources],
      [sourceKey],
    );
  }

  async delete(monitor: MonitorRecord): Promise<void> {
    await this.#redis
      .multi()
      .del(
        this.#keys.monitor(monitor.id),
        this.#keys.items(monitor.id),
        this.#keys.delivered(monitor.id),
        this.#keys.pulled(monitor.id),
      )
      .srem(this.#keys.ownedBy(monitor.key_id), monitor.id)
      .srem(this.#limitSet(monitor), monitor.id)
      .srem(this.#keys.watching(sourceKeyOf(monitor)), monitor.id)
      .exec();
  }

  /**
   * Stops every monitor of a revoked key for good: each is marked revoked and leaves its account's
   * limit, so the account may create others with its remaining keys. Repeatable (a revocation heard
   * twice, or learned again from a refused debit, changes nothing more). Returns the monitors it stopped.
   */
  async stopRevokedKey(keyId: string, revokedAt: number): Promise<MonitorRecord[]> {
    const stopped: MonitorRecord[] = [];
    for (const owned of await this.listOwned(keyId)) {
      if (owned.revoked_at !== undefined) continue;
      const next = await this.update(owned.id, (current) => ({
        ...current,
        revoked_at: current.revoked_at ?? revokedAt,
      }));
      if (next === undefined) continue;
      if (next.account_id !== undefined)
        await this.#redis.srem(this.#keys.ownedByAccount(next.account_id), next.id);
      stopped.push(next);
    }
    return stopped;
  }

  /** Appends the items not delivered to this monitor before, in the order given; returns those. */
  async append(monitorId: string, items: readonly ListedItem[]): Promise<ListedItem[]> {
    if (items.length === 0) return [];
    const args = items.flatMap((item) => [item.id, item.created_utc, JSON.stringify(item)]);
    const keys = [this.#keys.items(monitorId), this.#keys.delivered(monitorId)];
    const positions = (await appendScript.run(this.#redis, keys, [this.#maxItems, ...args])) as number[];
    return positions.map((position) => items[position - 1]!);
  }

  /**
   * Per monitor, in the order given: the items it holds for pulling now (within the retention), and
   * the items pulls have returned so far (each counted once, however often it is pulled again).
   */
  async itemCounts(ids: readonly string[]): Promise<ItemCounts[]> {
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.xlen(this.#keys.items(id)).hget(this.#keys.pulled(id), "items");
    const replies = (await pipeline.exec()) ?? [];
    const number = (index: number) => {
      const [error, value] = replies[index] ?? [null, 0];
      return error === null ? Number(value ?? 0) : 0;
    };
    return ids.map((_, index) => ({ collected: number(2 * index), pulled: number(2 * index + 1) }));
  }

  /**
   * A pull: up to `count` items after `cursor` (an entry id; null: from the start), in delivery
   * order; the items on it that no pull returned before are counted as pulled.
   */
  async page(monitorId: string, cursor: string | null, count: number): Promise<ItemsPage> {
    const start = cursor === null ? "-" : `(${cursor}`;
    const keys = [this.#keys.items(monitorId), this.#keys.pulled(monitorId)];
    const entries = (await pullPageScript.run(this.#redis, keys, [start, count])) as [string, string[]][];
    const items = entries.map(([, fields]) => JSON.parse(fields[1] ?? "null") as Record<string, unknown>);
    return { items, cursor: entries.at(-1)?.[0] ?? cursor };
  }

  /**
   * Up to `count` items after `cursor`, in delivery order, without counting them as pulled: for a
   * webhook batch, which may yet fail.
   */
  async read(monitorId: string, cursor: string | null, count: number): Promise<ItemsPage> {
    const start = cursor === null ? "-" : `(${cursor}`;
    const entries = await this.#redis.xrange(this.#keys.items(monitorId), start, "+", "COUNT", count);
    const items = entries.map(([, fields]) => JSON.parse(fields[1] ?? "null") as Record<string, unknown>);
    return { items, cursor: entries.at(-1)?.[0] ?? cursor };
  }

  async #many(ids: readonly string[]): Promise<MonitorRecord[]> {
    if (ids.length === 0) return [];
    const raws = await this.#redis.mget(...ids.map((id) => this.#keys.monitor(id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as MonitorRecord);
  }
}
