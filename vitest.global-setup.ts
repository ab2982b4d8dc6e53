/**
 * Runs once before the test files: finds the real Redis and NATS (local servers, or containers where
 * a Docker engine exists), prints which ones the integration tests use, and hands their URLs to the
 * test workers through the environment.
 */

import { connect } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import { findInfrastructure } from "./packages/service-kit/src/testing/index.ts";

export default async function setup(): Promise<() => Promise<void>> {
  const infrastructure = await findInfrastructure();
  process.env.REDIS_URL = infrastructure.redisUrl;
  process.env.NATS_URL = infrastructure.natsUrl;
  const [redisVersion, nats] = await Promise.all([
    redisServerVersion(infrastructure.redisUrl),
    natsServerInfo(infrastructure.natsUrl),
  ]);
  process.stdout.write(
    `integration tests use real servers (${infrastructure.source}): Redis ${redisVersion} at ${infrastructure.redisUrl}, NATS ${nats.version} (JetStream ${nats.jetstream ? "on" : "OFF"}) at ${infrastructure.natsUrl}\n`,
  );
  if (!nats.jetstream) throw new Error("NATS must run with JetStream enabled (nats-server -js)");
  return () => infrastructure.stop();
}

async function redisServerVersion(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true });
  await client.connect();
  const info = await client.info("server");
  client.disconnect();
  return /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
}

async function natsServerInfo(url: string): Promise<{ version: string; jetstream: boolean }> {
  const connection = await connect({ servers: url });
  const info = {
    version: connection.info?.version ?? "unknown",
    jetstream: Boolean(connection.info?.jetstream),
  };
  await connection.close();
  return info;
}
