/**
 * "Send a test notice" is limited per account and hour like the optional notices
 * (NOTICES_PER_ACCOUNT_PER_HOUR, default 20): past it the portal sends nothing, by email or by
 * webhook, and says why.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

const PER_HOUR = 20;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ portal: true });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

describe("test notices", () => {
  it(`send at most ${PER_HOUR} an hour per account, then say that none was sent`, async () => {
    const email = `test-notices-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const outcomes: string[] = [];
    for (let i = 0; i < PER_HOUR + 5; i++) {
      const sent = await client.submit("/notifications", "/notifications/test", {});
      expect(sent.status).toBe(303);
      outcomes.push(new URL(sent.location ?? "", portal.url).searchParams.get("done") ?? "");
    }
    expect(outcomes.slice(0, PER_HOUR)).toEqual(Array(PER_HOUR).fill("test-sent"));
    expect(outcomes.slice(PER_HOUR)).toEqual(Array(5).fill("test-limited"));
    // The sign-up link, then one mail per test notice sent.
    const mails = await portal.inbox.waitForMessages(email, PER_HOUR + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await portal.inbox.messagesTo(email)).toHaveLength(mails.length);
    expect(mails.length).toBe(PER_HOUR + 1);
    const page = await client.get("/notifications?done=test-limited");
    expect(page.body).toContain("No test notice was sent");
  }, 120_000);
});
