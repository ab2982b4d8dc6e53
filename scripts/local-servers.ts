/**
 * Makes sure Redis and NATS (with JetStream) answer before the stack starts. On a developer machine
 * where they are installed but stopped, starts them the same way .ci/run does; otherwise says what to
 * start.
 */
import { execFileSync } from "node:child_process";
import { isReachable } from "../packages/service-kit/src/testing/infrastructure.ts";

const REDIS_START = [
  "redis-server",
  "--daemonize",
  "yes",
  "--bind",
  "127.0.0.1",
  "--port",
  "6379",
  "--save",
  "",
  "--appendonly",
  "no",
];
const NATS_START = [
  "start-stop-daemon",
  "--start",
  "--oknodo",
  "--background",
  "--exec",
  "/usr/sbin/nats-server",
  "--",
  "-a",
  "127.0.0.1",
  "-p",
  "4222",
  "-js",
  "-sd",
  "/var/lib/nats-server",
];

export async function ensureLocalServers(redisUrl: string, natsUrl: string, say: (line: string) => void) {
  await ensureOne("Redis", redisUrl, "redis://127.0.0.1:6379", REDIS_START, say);
  await ensureOne("NATS", natsUrl, "nats://127.0.0.1:4222", NATS_START, say);
}

async function ensureOne(
  name: string,
  url: string,
  localUrl: string,
  command: string[],
  say: (line: string) => void,
) {
  if (await isReachable(url)) return;
  if (url !== localUrl)
    throw new Error(`${name} is not reachable at ${url}; start it, or point the URL elsewhere`);
  say(`${name} is not running; starting it: ${command.join(" ")}`);
  try {
    execFileSync(command[0]!, command.slice(1), { stdio: "inherit" });
  } catch (error) {
    throw new Error(
      `${name} is not running at ${url} and could not be started (${String(error)}); start it by hand`,
    );
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await isReachable(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} did not come up at ${url}`);
}
