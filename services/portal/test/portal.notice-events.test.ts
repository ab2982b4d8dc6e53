/**
 * Notice events through the JetStream notice stream and the notifier's once-per-crossing record,
 * with the portal in-process on real NATS, Redis and SMTP: an event published while no portal runs
 * is sent once when one starts, even when the mail server refuses the first attempt; the email
 * carries a one-click unsubscribe link (and RFC 8058 headers) that works without signing in, and a
 * changed token is refused. A notice webhook's new signing secret is shown once, after a redirect.
 */
import { randomBytes } from "node:crypto";
import type { NoticeEvent } from "@rda/contracts";
import { publishNoticeEvent, redisKeys, sha256Hex } from "@rda/service-kit";
import { connectTestNats, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "./support/client.ts";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

let h: PortalHarness;
beforeAll(async () => {
  h = await startPortalHarness("portal-notice-events", { refusingSmtp: true });
}, 60_000);
afterAll(() => h?.close());

async function signedUpAccount(label: string) {
  const email = `${label}-${randomBytes(4).toString("hex")}@example.com`;
  const client = h.client();
  await client.signUp(email, h.inbox);
  const { id: keyId } = await client.createKey("watched");
  const accountId = await h.redis.get(redisKeys(h.namespace).portal.accountByEmail(sha256Hex(email)));
  if (!accountId) throw new Error("the account was not created");
  return { email, client, keyId, accountId };
}

const lowBalance = (accountId: string, keyId: string): NoticeEvent => ({
  kind: "balance_low",
  key_id: keyId,
  account_id: accountId,
  crossing: `${keyId}:low:200:1`,
  balance: 150,
  threshold: 200,
});

describe("notice events", () => {
  it("published while no portal runs are sent once when one starts, though the mail server refuses the first attempt", async () => {
    const { email, client, keyId, accountId } = await signedUpAccount("absent");
    await h.stopPortal();
    const nats = await connectTestNats();
    try {
      const event = lowBalance(accountId, keyId);
      expect((await publishNoticeEvent(nats, h.subjects, event)).ok).toBe(true);
      // Published again (a retried publish): still one notice.
      expect((await publishNoticeEvent(nats, h.subjects, event)).ok).toBe(true);
    } finally {
      await nats.close();
    }
    h.smtp!.refuseNext(1);
    await h.startPortal();

    const [, notice] = await h.inbox.waitForMessages(email, 2, 30_000);
    expect(notice!.subject).toBe(`Key ${keyId} is below 200 credits`);
    expect(h.smtp!.refused).toBe(1);
    // Nothing more comes: a test notice sent now is the next and last message.
    await client.submit("/notifications", "/notifications/test", {});
    const all = await h.inbox.waitForMessages(email, 3);
    expect(all.map((mail) => mail.subject)).toEqual([
      all[0]!.subject,
      `Key ${keyId} is below 200 credits`,
      "A test notice from the Reddit Data API",
    ]);
  });

  it("carry a one-click unsubscribe link that switches that kind off without signing in; a changed token is refused", async () => {
    const { email, keyId, accountId } = await signedUpAccount("unsubscribe");
    const nats = await connectTestNats();
    try {
      await publishNoticeEvent(nats, h.subjects, lowBalance(accountId, keyId));
    } finally {
      await nats.close();
    }
    const [, notice] = await h.inbox.waitForMessages(email, 2, 30_000);
    const link = /Stop notices of this kind: (\S+)/.exec(notice!.text)![1]!;
    const headers = await h.inbox.headersOf(notice!);
    expect(headers["list-unsubscribe"]).toBe(`<${link}>`);
    expect(headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    const path = link.slice(h.url.length);

    const stranger = new BrowserlessClient(h.url);
    const tampered = path.replace(/token=([^&]+)/, (_all, token: string) => `token=${token.slice(0, -2)}xx`);
    const refused = await stranger.get(tampered);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("This unsubscribe link is not valid");
    expect((await stranger.post(tampered, { "List-Unsubscribe": "One-Click" })).status).toBe(400);

    const page = await stranger.get(path);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Stop these notices");
    // Opening the link changed nothing (mail scanners open links); the button, or a mail program's
    // one-click POST, does.
    const settingsKey = redisKeys(h.namespace).portal.noticeSettings(accountId);
    expect(await h.redis.hget(settingsKey, "off:balance_low")).toBeNull();
    const done = await stranger.post(path, { "List-Unsubscribe": "One-Click" });
    expect(done.status).toBe(200);
    expect(done.body).toContain("You will no longer get these notices");
    expect(await h.redis.hget(settingsKey, "off:balance_low")).toBe("1");

    // Switched off: the next crossing sends nothing (the test notice is the next message).
    const nats2 = await connectTestNats();
    try {
      await publishNoticeEvent(nats2, h.subjects, {
        ...lowBalance(accountId, keyId),
        crossing: `${keyId}:low:200:2`,
      });
    } finally {
      await nats2.close();
    }
    await waitFor(async () => ((await h.noticeBacklog()) === 0 ? true : undefined), "the event handled");
    const mails = await h.inbox.messagesTo(email);
    expect(mails.filter((mail) => mail.subject.startsWith(`Key ${keyId} is below`))).toHaveLength(1);
  });

  it("show a new notice webhook's secret once, after a redirect, so a reload never saves the form again", async () => {
    const { client } = await signedUpAccount("hook-secret");
    const saved = await client.submit("/notifications", "/notifications/webhook", {
      webhook_url: "https://hooks.example.com/notices",
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe("/notifications/webhook/secret");

    const shown = await client.follow(saved);
    expect(shown.status).toBe(200);
    const secret = /id="webhook-secret"[^>]*value="(whsec_[^"]+)"/.exec(shown.body)?.[1];
    expect(secret).toBeDefined();

    const again = await client.follow(saved);
    expect(again.status).toBe(303);
    expect(again.location).toBe("/notifications?done=notice-webhook-secret-shown");
    const page = await client.follow(again);
    expect(page.body).toContain("shown only once, and it was shown already");
    expect(page.body).not.toContain(secret);
    expect(page.body).toContain("https://hooks.example.com/notices");
  });
});
