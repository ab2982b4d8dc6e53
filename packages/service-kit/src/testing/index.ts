/**
 * Helpers for tests against real Redis and NATS. `vitest.global-setup.ts` resolves the servers once
 * and exports their URLs as REDIS_URL / NATS_URL; each test takes its own namespace so tests run in
 * parallel without seeing each other's subjects or keys, and never touch a running stack's data.
 */
import { randomBytes, randomInt } from "node:crypto";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import { createLogger, type Logger } from "../logger.ts";

export {
  type CapturedMail,
  type CaptureInbox,
  type CaptureInboxOptions,
  startCaptureInbox,
} from "./capture-inbox.ts";
export {
  describeServers,
  findInfrastructure,
  type Infrastructure,
  isReachable,
  type ServerVersions,
} from "./infrastructure.ts";
export {
  type PrivateNatsCluster,
  type PrivateServer,
  startPrivateNats,
  startPrivateNatsCluster,
  startPrivateRedis,
} from "./private-servers.ts";

export function testRedisUrl(): string {
  return process.env.REDIS_URL || "redis://127.0.0.1:6379";
}

export function testNatsUrl(): string {
  return process.env.NATS_URL || "nats://127.0.0.1:4222";
}

/** A fresh namespace for one test's subjects and keys, e.g. `t-billing-1a2b3c4d`. */
export function testNamespace(label = "t"): string {
  const safe = label.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 16) || "t";
  return `t-${safe}-${randomBytes(4).toString("hex")}`;
}

export async function connectTestNats(): Promise<NatsConnection> {
  return connect({ servers: testNatsUrl(), name: "test" });
}

export async function connectTestRedis(): Promise<Redis> {
  const client = new Redis(testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 2 });
  await client.connect();
  return client;
}

/** Deletes every Redis key of a namespace (SCAN, never KEYS, so a shared server is not blocked). */
export async function deleteNamespaceKeys(redis: Redis, namespace: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${namespace}:*`, "COUNT", 500);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
}

/** A logger that keeps its lines in memory, so a test can assert what was (or was not) logged. */
export function capturingLogger(service = "test"): { logger: Logger; lines: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(service, { level: "debug", destination }), lines: () => chunks.join("") };
}

export function silentLogger(): Logger {
  return createLogger("test", { level: "silent" });
}

/** What `waitFor` hands back: its check's value, never falsy by then. */
type Truthy<T> = Exclude<T, undefined | null | false | 0 | "">;

/** Polls until `check` returns a truthy value, and returns it; throws with `what` after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Ports handed out for a child process (or a server that must know its address first) to bind a
 * moment later. Drawn below the kernel's ephemeral range (32768 and up on Linux), which is where
 * every `listen(0)` of the tests' in-process servers lands: a port taken by the OS for one of those
 * between our pick and the child's bind was an occasional EADDRINUSE. Each is checked free, and
 * none is handed out twice by one process.
 */
const PICKED_PORTS = { low: 20_000, high: 32_000 } as const;
const handedOut = new Set<number>();

/** A port that was free a moment ago, for a child process to bind. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(PICKED_PORTS.low, PICKED_PORTS.high);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PICKED_PORTS.low} and ${PICKED_PORTS.high} after 100 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
