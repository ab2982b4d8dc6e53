/**
 * A monitor added to a source another monitor already follows starts at once, however long that
 * monitor's interval: the add wakes the source. When a replica is polling the source at that moment
 * (a poll that did not see the new monitor), its release leaves the source due now rather than a
 * whole interval later. Against real Redis.
 */
import { openRedis, type Redis } from "@rda/service-kit";
import { deleteNamespaceKeys, silentLogger, testNamespace, testRedisUrl } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorKeys } from "../src/monitor-keys.ts";
import { SourceLeases } from "../src/source-leases.ts";

const namespace = testNamespace("wake");
const INTERVAL_MS = 3_600_000;
let redis: Redis;
let leases: SourceLeases;

beforeAll(async () => {
  redis = await openRedis(testRedisUrl(), "wake-test", silentLogger());
  leases = new SourceLeases(redis, monitorKeys(namespace), "replica-a", 30_000);
});
afterAll(async () => {
  await deleteNamespaceKeys(redis, namespace);
  redis.disconnect();
});

describe("a source woken by a new monitor", () => {
  it("is due at once when no replica is polling it", async () => {
    const key = "post:woken_idle";
    const held = await leases.claimIfDue(key, Date.now());
    expect(held).toBeDefined();
    expect(await leases.release(held!, 100, Date.now() + INTERVAL_MS)).toBe(true);
    expect(await leases.claimIfDue(key, Date.now())).toBeUndefined();
    await leases.wake(key);
    expect(await leases.claimIfDue(key, Date.now())).toBeDefined();
  });

  it("is due at once after the poll that was under way when it was woken, not an interval later", async () => {
    const key = "post:woken_mid_poll";
    const polling = await leases.claimIfDue(key, Date.now());
    expect(polling).toBeDefined();
    // The new monitor is added while the poll (which did not see it) is under way.
    await leases.wake(key);
    expect(await leases.release(polling!, 100, Date.now() + INTERVAL_MS)).toBe(true);
    const next = await leases.claimIfDue(key, Date.now());
    expect(next).toBeDefined();
    expect(next!.state.hwm).toBe(100);
    // That next poll sees the new monitor: once released, the source waits its interval again.
    expect(await leases.release(next!, 100, Date.now() + INTERVAL_MS)).toBe(true);
    expect(await leases.claimIfDue(key, Date.now())).toBeUndefined();
  });
});
