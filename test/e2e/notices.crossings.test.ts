/**
 * Notices of crossings over the whole stack: a portal account with a webhook and a low-balance
 * threshold; 400 requests at once over two gateways take its key across the threshold and across
 * 80 % and 100 % of its monthly cap. Each line crossed sends exactly one email and one webhook,
 * which a receiver verifies with the `standardwebhooks` package. A top-up lifting the balance back
 * over the threshold re-arms it: the next crossing is told again, once.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { topUpReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { freePort, waitFor } from "@rda/service-kit/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let receiver: Server;
let receiverUrl: string;
const deliveries: { headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  stack = await startStack({ portal: true, defaultRateLimit: { qps: 10_000, burst: 10_000 } });
  const port = await freePort();
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      deliveries.push({ headers: request.headers as Record<string, string>, body });
      response.writeHead(204).end();
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

describe("notices of crossings", () => {
  it("send one email and one verified webhook per line crossed, however many requests cross it at once", async () => {
    const email = `notices-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId, secret } = await client.createKey("busy");

    const saved = await client.submit("/notifications", "/notifications/webhook", {
      webhook_url: receiverUrl,
    });
    expect(saved.status).toBe(303);
    const hook = await client.follow(saved);
    const signingSecret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(hook.body)![1]!;
    expect((await client.get("/notifications")).body).not.toContain(signingSecret);
    const threshold = await client.submit("/notifications", "/notifications/threshold", {
      low_balance_threshold: "200",
    });
    expect(threshold.status).toBe(303);
    expect((await client.submit(`/keys/${keyId}`, `/keys/${keyId}/cap`, { monthly_cap: "300" })).status).toBe(
      303,
    );

    // 333 credits, a 300-credit cap: 300 served, the balance crosses 200, the spend 240 and 300.
    const replicaUrl = (await stack.startGateway()).url;
    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        getJson(`${index % 2 ? replicaUrl : stack.gatewayUrl}/v1/subreddits/search?q=a`, withKey(secret)),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(300);

    const mails = await portal.inbox.waitForMessages(email, 4);
    const subjects = mails
      .slice(1)
      .map((mail) => mail.subject)
      .sort();
    expect(subjects).toEqual([
      `Key ${keyId} is below 200 credits`,
      `Key ${keyId} reached its monthly spend cap`,
      `Key ${keyId} spent 80 % of its monthly spend cap`,
    ]);
    await waitFor(() => deliveries.length >= 3 || undefined, "three webhooks");
    const hooks = [...deliveries];
    const verifier = new Webhook(signingSecret);
    const types = hooks.map(
      (delivery) => (verifier.verify(delivery.body, delivery.headers) as { type: string }).type,
    );
    expect(types.sort()).toEqual(["balance.low", "spend_cap.reached", "spend_cap.warning"]);
    const low = hooks.find((delivery) => delivery.body.includes("balance.low"))!;
    expect(JSON.parse(low.body).data).toMatchObject({ key_id: keyId, threshold: 200, kind: "balance_low" });

    // Nothing more arrives: a test notice sent now is the next (and only other) message.
    await client.submit("/notifications", "/notifications/test", {});
    const after = await portal.inbox.waitForMessages(email, 5);
    expect(after.at(-1)!.subject).toBe("A test notice from the Reddit Data API");
    expect(after).toHaveLength(5);
    await waitFor(() => deliveries.length >= 4 || undefined, "the test webhook");
    expect(deliveries).toHaveLength(4);

    const account = await getJson(`${stack.gatewayUrl}/v1/account`, withKey(secret));
    expect(account.body.data).toMatchObject({
      credits_balance: 33,
      low_balance_threshold: 200,
      spend: { credits_spent: 300, monthly_cap: 300 },
    });
  });

  // A top-up buys at least 3,333 credits, so telling the second crossing takes that many requests:
  // 13 s alone, longer beside other tests; the bound is for a hang, not for speed.
  it("tell a crossing of the low-balance line once, and once more after a top-up lifts the balance back over it", {
    timeout: 120_000,
  }, async () => {
    const email = `rearm-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId, secret } = await client.createKey("rearmed");
    const hook = await client.follow(
      await client.submit("/notifications", "/notifications/webhook", { webhook_url: receiverUrl }),
    );
    const signingSecret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(hook.body)![1]!;
    await client.submit("/notifications", "/notifications/threshold", { low_balance_threshold: "3400" });
    const topUp = async () => {
      const reply = await requestJson(
        stack.nats,
        stack.subjects.billing.topUp,
        { id: keyId, usd_cents: 500, request_id: `topup-${randomBytes(6).toString("hex")}` },
        topUpReplySchema,
        10_000,
      );
      if (!reply.ok || reply.value.outcome !== "ok") throw new Error("the top-up failed");
      return reply.value.credits_balance;
    };
    const replicaUrl = (await stack.startGateway()).url;
    // Spends down to 50 credits under the line, up to 400 requests at a time over both gateways. A
    // request that failed (a busy machine) was not charged: the next wave spends its credit.
    const spendUnder = async (balance: number) => {
      for (let left = balance - 3_350; left > 0; ) {
        const wave = Math.min(400, left);
        const answers = await Promise.all(
          Array.from({ length: wave }, (_, index) =>
            getJson(`${index % 2 ? replicaUrl : stack.gatewayUrl}/v1/subreddits/search?q=a`, withKey(secret)),
          ),
        );
        const served = answers.filter((answer) => answer.status === 200).length;
        expect(served).toBeGreaterThan(0);
        left -= served;
      }
    };
    const mine = () =>
      deliveries.filter((delivery) => delivery.body.includes(keyId) && delivery.body.includes("balance.low"));

    await spendUnder(await topUp());
    const [, first] = await portal.inbox.waitForMessages(email, 2);
    expect(first!.subject).toBe(`Key ${keyId} is below 3,400 credits`);
    await waitFor(() => mine().length >= 1 || undefined, "the first webhook");

    await spendUnder(await topUp());
    const mails = await portal.inbox.waitForMessages(email, 3);
    expect(mails[2]!.subject).toBe(`Key ${keyId} is below 3,400 credits`);
    await waitFor(() => mine().length >= 2 || undefined, "the second webhook");
    const verifier = new Webhook(signingSecret);
    const told = mine().map(
      (delivery) => verifier.verify(delivery.body, delivery.headers) as { data: object },
    );
    expect(told.map((event) => event.data)).toEqual([
      expect.objectContaining({ key_id: keyId, threshold: 3_400, balance: 3_399 }),
      expect.objectContaining({ key_id: keyId, threshold: 3_400, balance: 3_399 }),
    ]);
    expect(new Set(mine().map((delivery) => delivery.headers["webhook-id"])).size).toBe(2);

    // Nothing more: a test notice sent now is the next message.
    await client.submit("/notifications", "/notifications/test", {});
    const after = await portal.inbox.waitForMessages(email, 4);
    expect(after.at(-1)!.subject).toBe("A test notice from the Reddit Data API");
    expect(after).toHaveLength(4);
    expect(mine()).toHaveLength(2);
  });
});
