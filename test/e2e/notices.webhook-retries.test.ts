/**
 * Notice webhooks ride on the one outbound webhook machinery, over the whole stack (the portal, its
 * notices worker, real Redis, NATS and HTTP): a receiver that fails at first gets the notice again,
 * with the same `webhook-id`, until it accepts, and takes it once; the notifications page's delivery
 * log shows each attempt's status. A rotated secret signs beside the old one during the overlap.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { freePort, waitFor } from "@rda/service-kit/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

/** The receiver refuses this many requests for each webhook-id before accepting it. */
const REFUSALS = 2;
let stack: Stack;
let receiver: Server;
let receiverUrl: string;
const received: { id: string; status: number; headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  stack = await startStack({
    portal: true,
    // Production retries for 3 days from 10 s on; here from 100 ms, within a minute.
    noticeWebhooks: {
      schedule: { retryWindowMs: 60_000, firstRetryMs: 100, maxRetryDelayMs: 500 },
      tickMs: 50,
    },
  });
  const port = await freePort();
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const id = String(request.headers["webhook-id"]);
      const seen = received.filter((each) => each.id === id).length;
      const status = seen < REFUSALS ? 503 : 204;
      received.push({ id, status, headers: request.headers as Record<string, string>, body });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${port}/notices`;
}, 90_000);
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.stop();
});

const accepted = (id: string) => received.filter((each) => each.id === id && each.status === 204);

describe("notice webhooks", () => {
  it("are retried after failures, logged on the notifications page, and accepted once", async () => {
    const email = `notice-retries-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const saved = await client.submit("/notifications", "/notifications/webhook", {
      webhook_url: receiverUrl,
    });
    const secret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec((await client.follow(saved)).body)![1]!;

    const sent = await client.submit("/notifications", "/notifications/test", {});
    expect(new URL(sent.location ?? "", portal.url).searchParams.get("done")).toBe("test-queued");
    const first = (await waitFor(() => received[0], "the first attempt"))!;
    await waitFor(() => accepted(first.id).length === 1 || undefined, "the notice accepted", 30_000);
    const mine = received.filter((each) => each.id === first.id);
    expect(mine.map((each) => each.status)).toEqual([503, 503, 204]);
    // Every attempt is the same message, signed with the account's secret.
    for (const attempt of mine) {
      const verified = new Webhook(secret).verify(attempt.body, attempt.headers) as { type: string };
      expect(verified.type).toBe("notice.test");
    }

    // The log on the page: the delivery, delivered, with its three attempts' status codes.
    const page = await waitFor(async () => {
      const body = (await client.get("/notifications")).body;
      return body.includes(`data-delivery-id="${first.id}" data-state="delivered"`) ? body : "";
    }, "the log to show the delivery");
    const row = page.slice(page.indexOf(`data-delivery-id="${first.id}"`));
    const statuses = [...row.slice(0, row.indexOf("</tbody>")).matchAll(/class="num status-code">(\d+)</g)];
    expect(statuses.map((match) => match[1])).toEqual(["503", "503", "204"]);
    expect(row).toContain("notice.test");

    // Redelivered from the log: the same webhook-id again (a new round), accepted.
    const again = await client.submit(
      "/notifications",
      `/notifications/webhook/deliveries/${first.id}/redeliver`,
      {},
    );
    expect(new URL(again.location ?? "", portal.url).searchParams.get("done")).toBe("notice-redelivering");
    await waitFor(() => accepted(first.id).length === 2 || undefined, "the redelivery accepted", 30_000);
  }, 120_000);

  it("are signed with both secrets while a rotation overlaps", async () => {
    const email = `notice-rotate-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const saved = await client.submit("/notifications", "/notifications/webhook", {
      webhook_url: receiverUrl,
    });
    const oldSecret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec((await client.follow(saved)).body)![1]!;
    const rotated = await client.submit("/notifications", "/notifications/webhook/rotate-secret", {});
    expect(rotated.status).toBe(303);
    const newSecret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec((await client.follow(rotated)).body)![1]!;
    expect(newSecret).not.toBe(oldSecret);

    const before = new Set(received.map((each) => each.id));
    await client.submit("/notifications", "/notifications/test", {});
    const delivery = (await waitFor(
      () => received.find((each) => !before.has(each.id) && each.status === 204),
      "the test notice accepted",
      30_000,
    ))!;
    for (const secret of [newSecret, oldSecret])
      expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
  }, 120_000);
});
