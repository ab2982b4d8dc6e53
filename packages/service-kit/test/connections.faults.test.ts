/**
 * What every service's readiness and requests rest on, against private servers that the test stops
 * and pauses: NATS reported disconnected while it is (and a request then fails at once, unsent), and
 * a stalled Redis turned into a fast failure instead of a hang; a read of the response cache gives
 * up sooner still, yet never because its own process was too busy to read the answer.
 */
import {
  cacheCall,
  connectNats,
  isNatsConnected,
  type NatsConnection,
  openRedis,
  type Redis,
  redisResponds,
  requestRaw,
} from "@rda/service-kit";
import {
  freePort,
  type PrivateServer,
  silentLogger,
  startPrivateNats,
  startPrivateRedis,
  waitFor,
} from "@rda/service-kit/testing";
import { Redis as RedisClient } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let natsServer: PrivateServer;
let redisServer: PrivateServer;
let nats: NatsConnection;
let redis: Redis;
let operator: RedisClient;

beforeAll(async () => {
  [natsServer, redisServer] = await Promise.all([
    freePort().then(startPrivateNats),
    freePort().then(startPrivateRedis),
  ]);
  nats = await connectNats(natsServer.url, "faults-test", silentLogger());
  redis = await openRedis(redisServer.url, "faults-test", silentLogger(), { commandTimeoutMs: 300 });
  operator = new RedisClient(redisServer.url);
});

afterAll(async () => {
  operator.disconnect();
  redis.disconnect();
  await nats.close();
  await Promise.all([natsServer.remove(), redisServer.remove()]);
});

describe("a service's connections under faults", () => {
  it("reports NATS disconnected while its server is down, fails requests at once meanwhile, and connected again after", async () => {
    expect(isNatsConnected(nats)).toBe(true);
    await natsServer.stop();
    await waitFor(() => !isNatsConnected(nats), "NATS reported disconnected");

    const started = performance.now();
    const answer = await requestRaw(nats, "anything", "{}", 5_000);
    expect(performance.now() - started).toBeLessThan(100);
    expect(answer).toMatchObject({ ok: false, error: { kind: "offline" } });

    await natsServer.start();
    await waitFor(() => isNatsConnected(nats), "NATS reported connected again", 15_000);
    const echo = nats.subscribe("echo", {
      callback: (_error, message) => void message.respond(message.data),
    });
    expect((await requestRaw(nats, "echo", "hi", 2_000)).ok).toBe(true);
    echo.unsubscribe();
  });

  it("fails a command within its timeout and reports Redis unready while Redis is paused, and ready after", async () => {
    expect(await redisResponds(redis)).toBe(true);
    await operator.call("CLIENT", "PAUSE", "2000", "ALL");

    const started = performance.now();
    await expect(redis.get("anything")).rejects.toThrow(/timed out/i);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await redisResponds(redis, 200)).toBe(false);

    await waitFor(() => redisResponds(redis), "Redis answering again", 5_000);
  });

  it("starts on a Redis that answers its first PING only after the command timeout, within the connect bound", async () => {
    // Paused from before the service connects: the first PING outlasts the 300 ms command timeout.
    await operator.call("CLIENT", "PAUSE", "1200", "ALL");
    const started = await openRedis(redisServer.url, "faults-test-start", silentLogger(), {
      commandTimeoutMs: 300,
      connectTimeoutMs: 5_000,
    });
    try {
      expect(await started.ping()).toBe("PONG");
    } finally {
      started.disconnect();
    }
  });

  it("gives up starting on a Redis that stays silent past the connect bound, saying so", async () => {
    await operator.call("CLIENT", "PAUSE", "2000", "ALL");
    await expect(
      openRedis(redisServer.url, "faults-test-start", silentLogger(), {
        commandTimeoutMs: 200,
        connectTimeoutMs: 700,
      }),
      // Which step the bound ends (a command, the connection, the wait for it to be ready) depends on
      // the machine's load; each says why.
    ).rejects.toThrow(
      /cannot reach Redis at .*: (Command timed out|Connection is closed|not ready within 700 ms)/,
    );
    await waitFor(() => redisResponds(redis), "Redis answering again", 5_000);
  });

  it("gives a cache read up after its bound while Redis is paused, well before the command timeout", async () => {
    await operator.call("CLIENT", "PAUSE", "1000", "ALL");
    const started = performance.now();
    await expect(cacheCall(redis.get("anything"), 100)).rejects.toThrow(
      "the response cache did not answer within 100 ms",
    );
    expect(performance.now() - started).toBeLessThan(250);
    await waitFor(() => redisResponds(redis), "Redis answering again", 5_000);
  });

  it("uses a cached answer that arrived while its process was too busy to read it", async () => {
    await redis.set("cache-read:kept", "kept");
    const read = cacheCall(redis.get("cache-read:kept"), 20);
    // Redis answers within a millisecond; nothing reads the socket until the bound has long passed.
    const until = Date.now() + 100;
    while (Date.now() < until) {}
    await expect(read).resolves.toBe("kept");
  });
});
