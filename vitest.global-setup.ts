/**
 * Runs once before the test files: finds the real Redis and NATS (local servers, or containers where
 * a Docker engine exists), prints which ones the integration tests use, and hands their URLs to the
 * test workers through the environment.
 */
import { describeServers, findInfrastructure } from "./packages/service-kit/src/testing/infrastructure.ts";

export default async function setup(): Promise<() => Promise<void>> {
  const infrastructure = await findInfrastructure();
  process.env.REDIS_URL = infrastructure.redisUrl;
  process.env.NATS_URL = infrastructure.natsUrl;
  const versions = await describeServers(infrastructure.redisUrl, infrastructure.natsUrl);
  process.stdout.write(
    `integration tests use real servers (${infrastructure.source}): Redis ${versions.redis} at ${infrastructure.redisUrl}, NATS ${versions.nats} (JetStream ${versions.jetstream ? "on" : "OFF"}) at ${infrastructure.natsUrl}\n`,
  );
  if (!versions.jetstream) throw new Error("NATS must run with JetStream enabled (nats-server -js)");
  return () => infrastructure.stop();
}
