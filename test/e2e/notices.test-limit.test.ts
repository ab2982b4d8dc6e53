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
const TEST_NOTICE_SUBJECT = "A test notice from the Reddit Data API";
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
    // A sign-in link asked for afterwards: each mail is sent before its request is answered, so any
    // mail of the test notices above reached the inbox before this one.
    const later = await new BrowserlessClient(portal.url).submit("/login", "/login", { email });
    expect(later.status).toBe(200);
    const mails = await portal.inbox.waitForMessages(email, PER_HOUR + 2);
    expect(mails.filter((mail) => mail.subject === TEST_NOTICE_SUBJECT)).toHaveLength(PER_HOUR);
    // The sign-up link, one mail per test notice sent, and the sign-in link.
    expect(mails).toHaveLength(PER_HOUR + 2);
    const page = await client.get("/notifications?done=test-limited");
    expect(page.body).toContain("No test notice was sent");
  }, 120_000);
});
