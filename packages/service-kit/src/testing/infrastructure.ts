/**
 * Finds the real Redis and NATS the integration tests run against: the servers at REDIS_URL/NATS_URL
 * when reachable (this machine, CI), containers started by testcontainers where a Docker engine
 * exists, and otherwise a failure that says what to start. Never a mock.
 */
import { existsSync } from "node:fs";
import { connect as connectTcp } from "node:net";

export interface Infrastructure {
  redisUrl: string;
  natsUrl: string;
  source: "local servers" | "testcontainers";
  stop(): Promise<void>;
}

/**
 * What to run when a server is missing: the repository's own starter (what `pnpm start` and
 * `.ci/run` use), or the same commands by hand, on the ports the URLs name.
 */
function startHint(redisUrl: string, natsUrl: string): string {
  const redisPort = new URL(redisUrl.split(",")[0]!.trim()).port || "6379";
  const natsPort = new URL(natsUrl.split(",")[0]!.trim()).port || "4222";
  return [
    "start them, then run the tests again:",
    "  pnpm exec tsx scripts/local-servers.ts    # starts whichever is missing, at REDIS_URL and NATS_URL",
    "or by hand:",
    `  redis-server --daemonize yes --bind 127.0.0.1 --port ${redisPort} --save "" --appendonly no`,
    `  nohup nats-server -a 127.0.0.1 -p ${natsPort} -js -sd /tmp/nats-server-${natsPort} >/dev/null 2>&1 &`,
  ].join("\n");
}

export async function findInfrastructure(env = process.env): Promise<Infrastructure> {
  const redisUrl = env.REDIS_URL || "redis://127.0.0.1:6379";
  const natsUrl = env.NATS_URL || "nats://127.0.0.1:4222";
  const [redisUp, natsUp] = await Promise.all([isReachable(redisUrl), isReachable(natsUrl)]);
  if (redisUp && natsUp) return { redisUrl, natsUrl, source: "local servers", stop: async () => {} };
  if (hasDockerEngine(env)) return startContainers();
  const missing = [!redisUp && `Redis (${redisUrl})`, !natsUp && `NATS (${natsUrl})`]
    .filter(Boolean)
    .join(" and ");
  throw new Error(
    `integration tests need a real ${missing}, and no Docker engine is available; ${startHint(redisUrl, natsUrl)}`,
  );
}

export function isReachable(url: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url.split(",")[0]!.trim());
  return new Promise<boolean>((resolve) => {
    const socket = connectTcp({ host: hostname, port: Number(port), timeout: timeoutMs });
    const settle = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.once("connect", () => settle(true));
    socket.once("timeout", () => settle(false));
    socket.once("error", () => settle(false));
  });
}

function hasDockerEngine(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.DOCKER_HOST) || existsSync("/var/run/docker.sock");
}

/** Loaded lazily: testcontainers is only needed (and only importable everywhere) with an engine. */
async function startContainers(): Promise<Infrastructure> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const redis = await new GenericContainer("redis:7-alpine").withExposedPorts(6379).start();
  const nats = await new GenericContainer("nats:2.10-alpine")
    .withCommand(["-js"])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  return {
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    source: "testcontainers",
    stop: async () => {
      await Promise.all([redis.stop(), nats.stop()]);
    },
  };
}

export interface ServerVersions {
  redis: string;
  nats: string;
  jetstream: boolean;
}

/** Asks each server for its version, so a test run shows what it really ran against. */
export async function describeServers(redisUrl: string, natsUrl: string): Promise<ServerVersions> {
  const { Redis } = await import("ioredis");
  const { connect } = await import("@nats-io/transport-node");
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  const info = await redis.info("server");
  redis.disconnect();
  const nats = await connect({ servers: natsUrl });
  const versions = {
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown",
    nats: nats.info?.version ?? "unknown",
    jetstream: Boolean(nats.info?.jetstream),
  };
  await nats.close();
  return versions;
}
