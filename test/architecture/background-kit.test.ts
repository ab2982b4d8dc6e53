/**
 * Background work runs on one kit (docs/architecture.md#background-work): one loop, one lease and
 * one adapter caller, each in service-kit; below, each with its own rule.
 *
 * One loop (service-kit `startLoop`: no overlap, a stop that waits for the turn under way, a failed
 * turn logged). A second
 * loop written by hand forgets one of those: the exports' retention sweep once ran on a bare
 * `setInterval`, overlapping itself and cut off at shutdown.
 *
 * Work handed out by a JetStream consumer runs on the other home, service-kit `startConsumerLoop`
 * (below): it waits on the queue, not on a timer.
 *
 * A few timers are no work loops and stay, each named here with why (a second one in the same file
 * fails too, since the list is compared line for line by file):
 * - the one renewal timer keeps a lease alive while its holder works (lease.ts `renewWhileHeld`:
 *   an upstream turn, an upstream fetch's claim, a consumer message's ack wait);
 * - a served subject's progress beat tells one waiting requester the responder is alive;
 * - the logger flushes its buffer.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const LOOP_HOME = ["packages/service-kit/src/loop.ts", "packages/service-kit/src/consumer-loop.ts"];
const HAND_MADE_LOOP = [
  /\bsetInterval\s*\(/,
  /\bwhile\s*\(\s*!\s*(this\.)?#?(stop|stopp|stopping|stopped)\b/,
];
const NOT_WORK_LOOPS = [
  "packages/service-kit/src/lease.ts",
  "packages/service-kit/src/logger.ts",
  "packages/service-kit/src/nats-service.ts",
];

const fileOf = (found: string) => found.replace(/:\d+$/, "");

describe("background work", () => {
  it("repeats on service-kit's startLoop only; the timers that are no work loops are the known few", () => {
    expect(linesOutsideHome(LOOP_HOME, HAND_MADE_LOOP).map(fileOf).sort()).toEqual(NOT_WORK_LOOPS);
  });

  it("would notice a loop made by hand", () => {
    for (const line of [
      "const sweep = setInterval(() => void removeExpired(), 60_000);",
      "while (!stopping) {",
      "while (!this.#stopped) await turn();",
    ])
      expect(
        HAND_MADE_LOOP.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(HAND_MADE_LOOP.some((pattern) => pattern.test("clearInterval(timer)"))).toBe(false);
  });
});

/**
 * One consumer loop (service-kit `consumer-loop.ts`: a handler pulls a message only when it is
 * free, a malformed message is terminated, a lost one is left, the ack wait is renewed while the
 * handler runs, and `stop()` waits for the message under way). A consumer read by hand forgets one
 * of those: billing's refunds and the notice events were once each a `consume()` and a `for await`
 * of their own, with the same stop written twice.
 */
const CONSUMER_HOME = ["packages/service-kit/src/consumer-loop.ts"];
const OWN_CONSUMER = [
  /\bconsumers\s*\.\s*get\s*\(/,
  /\.\s*consume\s*\(\s*(\{|\))/,
  /\.\s*(fetch|next)\s*\(\s*\{[^}]*\b(max_messages|expires)\b/,
];

describe("a JetStream consumer", () => {
  it("is worked off by service-kit's startConsumerLoop only", () => {
    expect(linesOutsideHome(CONSUMER_HOME, OWN_CONSUMER)).toEqual([]);
  });

  it("would notice a consumer read by hand", () => {
    for (const line of [
      "const consumer = await jetstream(nats).consumers.get(stream, durable);",
      "const messages = await consumer.consume({ max_messages: 16 });",
      "const messages = await consumer.consume();",
      "const message = await consumer.next({ expires: 1_000 });",
      "const batch = await consumer.fetch({ max_messages: 10 });",
    ])
      expect(
        OWN_CONSUMER.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(OWN_CONSUMER.some((pattern) => pattern.test("async consume(id) {"))).toBe(false);
  });
});

/**
 * One lease (service-kit `lease.ts`: `SET NX PX`, freed only by its owner, and `LEASE_STILL_HELD`
 * opening every script that writes under it). A second kind (a compare-and-set bucket, a claim
 * with its own owner check) would fence stale holders its own way, or not at all. The upstream
 * cache's single-flight marker is no work lease: it holds one upstream fetch's place so concurrent
 * requests join it, and ends with that fetch (its claim, its early end and its waiters' check). A
 * monitor record's compare-and-set compares the record itself, not an owner. The consumer loop
 * renews the ack wait of the message its handler works on: that is the queue's own delivery (a
 * message whose replica stopped goes to another), not who works a thing, which is a lease's to say
 * (an export job runs under its lease); no other source extends an ack wait.
 */
const LEASE_HOME = ["packages/service-kit/src/lease.ts"];
const HAND_MADE_LEASE = [
  /["']NX["'][^\n]*["']PX["']|["']PX["'][^\n]*["']NX["']/,
  /\bkv\s*\.\s*(update|create)\s*\(/i,
  /GET['"],\s*KEYS\[\d+\]\)\s*[~=]=\s*ARGV/,
  /\.working\s*\(\s*\)/,
];
const NOT_WORK_LEASES = [
  "packages/service-kit/src/consumer-loop.ts",
  "packages/upstream-client/src/cache/cache-scripts.ts",
  "packages/upstream-client/src/cache/cache-scripts.ts",
  "packages/upstream-client/src/cache/cache-scripts.ts",
  "services/monitors/src/monitor-store.ts",
];

describe("one replica at a time", () => {
  it("holds service-kit's lease only", () => {
    expect(linesOutsideHome(LEASE_HOME, HAND_MADE_LEASE).map(fileOf).sort()).toEqual(NOT_WORK_LEASES);
  });

  it("would notice a lease made another way", () => {
    for (const line of [
      'if ((await redis.set(claim, token, "PX", 120_000, "NX")) !== "OK") return;',
      "await this.#kv.update(key, JSON.stringify(claimed), entry.revision);",
      "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end",
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end",
      "const beat = setInterval(() => message.working(), ackWaitMs / 3);",
    ])
      expect(
        HAND_MADE_LEASE.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(HAND_MADE_LEASE.some((pattern) => pattern.test('redis.set(key, value, "PX", ttlMs)'))).toBe(false);
  });
});

/**
 * One adapter caller (service-kit `adapter-caller.ts`: the one request shape, the one outcome). A
 * caller that reads the reply frame itself maps outcomes its own way (every caller must read it, so
 * reading it is the mark of a caller). The adapters' own kit stamps the frames it sends; it asks no
 * adapter.
 */
const CALLER_HOME = ["packages/service-kit/src/adapter-caller.ts"];
const OWN_ADAPTER_CALL = [/(?<!function )\bdecodeAdapterReply\s*\(/];
const ADAPTER_SIDE = ["packages/adapter-kit/src/start-adapter.ts"];

describe("asking an adapter", () => {
  it("goes through service-kit's callAdapter only", () => {
    const found = linesOutsideHome(CALLER_HOME, OWN_ADAPTER_CALL)
      .map(fileOf)
      .filter((file) => !file.startsWith("packages/adapter-kit/src/testing/"));
    expect([...new Set(found)].sort()).toEqual(ADAPTER_SIDE);
  });

  it("would notice an adapter asked another way", () => {
    for (const line of [
      "const frame = decodeAdapterReply(reply.value);",
      "  const reply = decodeAdapterReply(answer.value);",
    ])
      expect(
        OWN_ADAPTER_CALL.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(
      OWN_ADAPTER_CALL.some((p) => p.test("export function decodeAdapterReply(frame: Uint8Array)")),
    ).toBe(false);
  });
});
