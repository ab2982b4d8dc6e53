/**
 * One outbound webhook system (docs/architecture.md#background-work): every webhook of ours is
 * signed, checked against the address guard, retried on one schedule and logged through
 * @rda/webhooks, and queued in its one outbox. A second sender (a `standardwebhooks` signature made
 * elsewhere, a POST to a customer's URL with its own retries) would skip the window, the log or the
 * guard, as the portal's notice webhooks once did with three attempts inside one call and no log. A
 * second delivery queue (monitors once kept their own beside the outbox) would keep a second copy of
 * the lease-checked writes, the states and the log format, each free to drift from the other.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const HOME = [
  "packages/webhooks/src/delivery.ts",
  "packages/webhooks/src/schedule.ts",
  "packages/webhooks/src/outbox.ts",
  "packages/webhooks/src/outbox-loop.ts",
  "packages/webhooks/src/index.ts",
];
/** Signing or sending a webhook; the SDK's verifying one (`.verify(`) is a receiver's, not ours. */
const SENDS_A_WEBHOOK = [/\bdeliverWebhook\s*\(/, /new Webhook\([^)]*\)\.sign\(/, /\bretryDelayMs\s*\(/];

/** The outbox and its loop: the one queue of deliveries, its records and the attempts it makes. */
const THE_QUEUE = [
  "packages/webhooks/src/schedule.ts",
  "packages/webhooks/src/outbox.ts",
  "packages/webhooks/src/outbox-loop.ts",
];
/**
 * What a delivery queue does: make an attempt and keep it in a record, schedule the next, or take
 * work from the head of a Redis list (commands or Lua). Nothing outside the outbox needs either:
 * the one other list (an account's keys, billing) is appended to and read whole.
 */
const RUNS_A_QUEUE = [
  /\battemptOnce\s*\(/,
  /\bnextAttemptAt\s*\(/,
  /\bwithAttemptKept\s*\(/,
  /\.(lindex|lpos|lrem|lpop|rpop|lmpop|lmove|blmove|blpop|brpop|rpoplpush|brpoplpush)\s*\(/i,
  /["'](LINDEX|LPOS|LREM|LPOP|RPOP|LMPOP|LMOVE|BLMOVE|BLPOP|BRPOP|RPOPLPUSH|BRPOPLPUSH)["']/i,
];
/** One attempt outside the queue is a monitor's test event only (its answer is the API's). */
const SENDS_OUTSIDE_THE_QUEUE = [/\.sendOnce\s*\(/];
const THE_TEST_EVENT = [...THE_QUEUE, "services/monitors/src/webhooks/monitor-webhooks.ts"];

describe("outbound webhooks", () => {
  it("are signed, sent and retried only in @rda/webhooks", () => {
    expect(linesOutsideHome(HOME, SENDS_A_WEBHOOK)).toEqual([]);
  });

  it("have one delivery queue, the outbox, for monitors' batches and accounts' notices alike", () => {
    expect(linesOutsideHome(THE_QUEUE, RUNS_A_QUEUE)).toEqual([]);
    expect(linesOutsideHome(THE_TEST_EVENT, SENDS_OUTSIDE_THE_QUEUE)).toEqual([]);
  });

  it("would notice a sender made elsewhere", () => {
    for (const line of [
      "const result = await deliverWebhook(target, message);",
      "const signature = new Webhook(secret).sign(id, now, body);",
      "const delay = retryDelayMs(attempts, settings);",
    ])
      expect(
        SENDS_A_WEBHOOK.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(SENDS_A_WEBHOOK.some((pattern) => pattern.test("new Webhook(secret).verify(body, headers)"))).toBe(
      false,
    );
  });

  it("would notice a second queue", () => {
    for (const line of [
      "const attempt = await attemptOnce(endpoint, message, record.round, options);",
      "const at = nextAttemptAt(tried.round_started_at, failed, schedule, Date.now());",
      "const tried = withAttemptKept(record, attempt);",
      "const head = await this.#redis.lindex(this.#keys.queue(id), 0);",
      "if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end",
      'const next = await redis.call("LPOP", key);',
      "await redis.lmove(pending, inFlight, 'LEFT', 'RIGHT');",
    ])
      expect(
        RUNS_A_QUEUE.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(
      SENDS_OUTSIDE_THE_QUEUE.some((pattern) => pattern.test("await outbox.sendOnce(record, to, options)")),
    ).toBe(true);
    for (const line of [
      "if (account !== '') await redis.rpush(keys.accountKeys(account), id);",
      "const ids = await redis.lrange(keys.accountKeys(account), 0, -1);",
    ])
      expect(
        RUNS_A_QUEUE.some((pattern) => pattern.test(line)),
        line,
      ).toBe(false);
  });
});
