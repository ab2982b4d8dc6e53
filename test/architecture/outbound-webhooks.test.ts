/**
 * One outbound webhook system (docs/architecture.md#background-work): every webhook of ours is
 * signed, checked against the address guard, retried on one schedule and logged through
 * @rda/webhooks. A second sender (a `standardwebhooks` signature made elsewhere, a POST to a
 * customer's URL with its own retries) would skip the window, the log or the guard, as the portal's
 * notice webhooks once did with three attempts inside one call and no log.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const HOME = [
  "packages/webhooks/src/delivery.ts",
  "packages/webhooks/src/schedule.ts",
  "packages/webhooks/src/outbox.ts",
  "packages/webhooks/src/index.ts",
];
/** Signing or sending a webhook; the SDK's verifying one (`.verify(`) is a receiver's, not ours. */
const SENDS_A_WEBHOOK = [/\bdeliverWebhook\s*\(/, /new Webhook\([^)]*\)\.sign\(/, /\bretryDelayMs\s*\(/];

describe("outbound webhooks", () => {
  it("are signed, sent and retried only in @rda/webhooks", () => {
    expect(linesOutsideHome(HOME, SENDS_A_WEBHOOK)).toEqual([]);
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
});
