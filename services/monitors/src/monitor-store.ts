/**
 * Monitor definitions and deliveries in Redis: records, the per-key and per-source indexes, each
 * monitor's items stream and the ids it already holds. Appending is one script per monitor, so an
 * item is delivered exactly once however often a poll is repeated (a replica that died mid-poll,
 * the backfill's last page overlapping the first live one).
 */
import { luaScript, type Redis } from "@rda/service-kit";
import { type MonitorRecord, sourceKeyOf } from "./monitor.ts";
import type { MonitorKeys } from "./monitor-keys.ts";

/** Items a delivered-id set and stream keep, at most; older ones are trimmed (a bounded retention). */
const MAX_ITEMS_PER_MONITOR = 100_000;

// KEYS: items stream, delivered set. ARGV: max length, then pairs of (item id, item JSON).
// Returns the 1-based positions of the items appended (the others were delivered before).
const APPEND = `
local appended = {}
for i = 2, #ARGV, 2 do
  if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'item', ARGV[i + 1])
    appended[#appended + 1] = i / 2
  end
end
return appended
`;

// KEYS: owner set, record, source set, sources. ARGV: id, record JSON, limit, source key.
const CREATE = `
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[4])
return 1
`;

const appendScript = luaScript(APPEND);
const createScript = luaScript(CREATE);

export interface ItemsPage {
  readonly items: unknown[];
  /** The cursor to pass next; unchanged when the page is empty. */
  readonly cursor: string | null;
}

export interface ListedItem {
  readonly id: string;
  readonly created_utc: number;
}

export class MonitorStore {
  readonly #redis: Redis;
  readonly #keys: MonitorKeys;

  constructor(redis: Redis, keys: MonitorKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** False when the key already holds `limit` monitors. */
  async create(monitor: MonitorRecord, limit: number): Promise<boolean> {
    const source = sourceKeyOf(monitor);
    const keys = [
      this.#keys.ownedBy(monitor.key_id),
      this.#keys.monitor(monitor.id),
      this.#keys.watching(source),
      this.#keys.sources,
    ];
    const created = await createScript.run(this.#redis, keys, [
      monitor.id,
      JSON.stringify(monitor),
      limit,
      source,
    ]);
    return created === 1;
  }

  async get(id: string): Promise<MonitorRecord | undefined> {
    const raw = await this.#redis.get(this.#keys.monitor(id));
    return raw === null ? undefined : (JSON.parse(raw) as MonitorRecord);
  }

  async save(monitor: MonitorRecord): Promise<void> {
    // XX: a monitor deleted meanwhile stays deleted.
    await this.#redis.set(this.#keys.monitor(monitor.id), JSON.stringify(monitor), "XX");
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

  /** Drops a source nobody watches any more (checked again at once, so a new watcher keeps it). */
  async forgetSourceIfUnwatched(sourceKey: string): Promise<void> {
    const watchers = await this.#redis.scard(this.#keys.watching(sourceKey));
    if (watchers === 0) await this.#redis.srem(this.#keys.sources, sourceKey);
  }

  async delete(monitor: MonitorRecord): Promise<void> {
    await this.#redis
      .multi()
      .del(this.#keys.monitor(monitor.id), this.#keys.items(monitor.id), this.#keys.delivered(monitor.id))
      .srem(this.#keys.ownedBy(monitor.key_id), monitor.id)
      .srem(this.#keys.watching(sourceKeyOf(monitor)), monitor.id)
      .exec();
  }

  /** Appends the items not delivered to this monitor before, in the order given; returns those. */
  async append(monitorId: string, items: readonly ListedItem[]): Promise<ListedItem[]> {
    if (items.length === 0) return [];
    const args = items.flatMap((item) => [item.id, JSON.stringify(item)]);
    const keys = [this.#keys.items(monitorId), this.#keys.delivered(monitorId)];
    const positions = (await appendScript.run(this.#redis, keys, [
      MAX_ITEMS_PER_MONITOR,
      ...args,
    ])) as number[];
    return positions.map((position) => items[position - 1]!);
  }

  /** Up to `count` items after `cursor` (an entry id; null: from the start), in delivery order. */
  async page(monitorId: string, cursor: string | null, count: number): Promise<ItemsPage> {
    const start = cursor === null ? "-" : `(${cursor}`;
    const entries = await this.#redis.xrange(this.#keys.items(monitorId), start, "+", "COUNT", count);
    const items = entries.map(([, fields]) => JSON.parse(fields[1] ?? "null") as unknown);
    return { items, cursor: entries.at(-1)?.[0] ?? cursor };
  }

  async #many(ids: readonly string[]): Promise<MonitorRecord[]> {
    if (ids.length === 0) return [];
    const raws = await this.#redis.mget(...ids.map((id) => this.#keys.monitor(id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as MonitorRecord);
  }
}
