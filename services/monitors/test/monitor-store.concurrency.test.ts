/**
 * The monitor store against real Redis: a PATCH and the poller writing the same monitor at once
 * never undo each other, and a monitor's delivered ids stay bounded while still refusing repeats.
 */
import type { Redis } from "@rda/service-kit";
import { connectTestRedis, deleteNamespaceKeys, testNamespace } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MonitorRecord, sourceKeyOf } from "../src/monitor.ts";
import { monitorKeys } from "../src/monitor-keys.ts";
import { MonitorStore } from "../src/monitor-store.ts";

let redis: Redis;
const namespace = testNamespace("monstore");
const keys = monitorKeys(namespace);

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await deleteNamespaceKeys(redis, namespace);
  await redis.quit();
});

function record(id: string): MonitorRecord {
  return {
    id,
    key_id: "key_store",
    kind: "post",
    subreddit: "pics",
    phrase: "old phrase",
    interval_seconds: 60,
    paused: false,
    created_at: 1,
    phase: { name: "backfill", cursor: null, pages: 0 },
  };
}

const item = (n: number) => ({ id: `t3_${n}`, created_utc: 1_000 + n });

describe("the monitor store", () => {
  it("keeps a PATCH's fields and the poller's phase when both write the same monitor at once", async () => {
    const store = new MonitorStore(redis, keys);
    const id = "mon_race";
    expect(await store.create(record(id), 25)).toBe("created");
    // The poller read the monitor before the PATCH; its writes must not bring the old phrase back.
    const writes: Promise<unknown>[] = [];
    for (let step = 1; step <= 30; step += 1) {
      writes.push(
        store.update(id, (current) => ({
          ...current,
          phase: { name: "backfill", cursor: step, pages: step },
        })),
        store.update(id, (current) => ({
          ...current,
          phrase: `phrase ${step}`,
          interval_seconds: 60 + step,
        })),
      );
    }
    writes.push(store.update(id, (current) => ({ ...current, paused: true })));
    await Promise.all(writes);
    await store.update(id, (current) => ({ ...current, phase: { name: "live", after: 99 } }));
    const final = await store.get(id);
    expect(final?.paused).toBe(true);
    expect(final?.phase).toEqual({ name: "live", after: 99 });
    // Every writer's change is on the record: the last phrase written is one of the PATCHes', never the old.
    expect(final?.phrase).toMatch(/^phrase \d+$/);
    expect(final?.interval_seconds).toBe(60 + Number(final?.phrase?.split(" ")[1]));
  });

  it("keeps a source polled when a monitor watching it is created just as the last one's source is dropped", async () => {
    const store = new MonitorStore(redis, keys);
    const gone = { ...record("mon_src_old"), subreddit: "sourcerace" };
    await store.create(gone, 25);
    await store.delete(gone);
    // The poller drops the unwatched source while a new monitor of it is created: both on one
    // connection, the dropping sent first. The new monitor's source stays walked.
    const fresh = { ...record("mon_src_new"), subreddit: "sourcerace" };
    const [, created] = await Promise.all([
      store.forgetSourceIfUnwatched(sourceKeyOf(gone)),
      store.create(fresh, 25),
    ]);
    expect(created).toBe("created");
    expect(await store.sources()).toContain(sourceKeyOf(fresh));
    await store.delete(fresh);
    await store.forgetSourceIfUnwatched(sourceKeyOf(fresh));
    expect(await store.sources()).not.toContain(sourceKeyOf(fresh));
  });

  it("leaves a deleted monitor deleted when an update arrives after the delete", async () => {
    const store = new MonitorStore(redis, keys);
    const monitor = record("mon_gone");
    await store.create(monitor, 25);
    await store.delete(monitor);
    expect(await store.update(monitor.id, (current) => ({ ...current, paused: true }))).toBeUndefined();
    expect(await store.get(monitor.id)).toBeUndefined();
  });

  it("trims the delivered ids to the newest while an id it still holds is never delivered twice", async () => {
    const store = new MonitorStore(redis, keys, 5);
    const monitor = record("mon_trim");
    await store.create(monitor, 25);
    const first = await store.append(monitor.id, [1, 2, 3, 4, 5, 6, 7, 8].map(item));
    expect(first.map((row) => row.id)).toHaveLength(8);
    expect(await redis.zcard(keys.delivered(monitor.id))).toBe(5);
    // The newest ids are kept: appending them again delivers nothing.
    expect(await store.append(monitor.id, [6, 7, 8].map(item))).toEqual([]);
    const more = await store.append(monitor.id, [8, 9, 10].map(item));
    expect(more.map((row) => row.id)).toEqual(["t3_9", "t3_10"]);
    expect(await redis.zrange(keys.delivered(monitor.id), "0", "-1")).toEqual([
      "t3_6",
      "t3_7",
      "t3_8",
      "t3_9",
      "t3_10",
    ]);
  });
});
