/**
 * Payment notices over the whole stack with the payments simulator: a $25 checkout sends one
 * receipt email with its figures and the card receipt's link, however often Stripe delivers the
 * event; a refund sends one notice of what was taken back. A mail server that refuses the receipt
 * or the refund's notice at first delays it, and it is still sent exactly once (the credits taken
 * back once).
 */
import { randomBytes } from "node:crypto";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let simUrl: string;
beforeAll(async () => {
  stack = await startStack({ payments: true, refusingSmtp: true });
  simUrl = stack.payments!.sim.url;
}, 90_000);
afterAll(() => stack?.stop());

const sim = async <T>(path: string, body?: object): Promise<T> => {
  const response = await fetch(`${simUrl}/__sim${path}`, {
    method: body ? "POST" : "GET",
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`simulator ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
};

interface SimEvent {
  id: string;
  type: string;
  data: { object: { id: string; payment_intent?: string } };
  deliveries: { status: number }[];
}

async function deliveredEvent(type: string, objectId: string): Promise<SimEvent> {
  const found = await waitFor(async () => {
    const { data } = await sim<{ data: SimEvent[] }>("/events");
    return data.findLast(
      (event) =>
        event.type === type &&
        [event.data.object.id, event.data.object.payment_intent].includes(objectId) &&
        event.deliveries.some((delivery) => delivery.status === 200),
    );
  }, `${type} for ${objectId} delivered`);
  return found!;
}

describe("payment notices", () => {
  it("sends one receipt for a $25 checkout, with the amount, the credits and the receipt link, and one notice for its refund", async () => {
    const email = `receipt-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId } = await client.createKey("buyer");

    const answer = await client.submit("/billing", "/billing/checkout", {
      key_id: keyId,
      amount: "25",
      action: "pay",
    });
    const sessionId = /\/c\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(answer.location ?? "")![1]!;
    const { payment_intent: intent } = await sim<{ payment_intent: string }>(
      `/checkout/sessions/${sessionId}/pay`,
      {
        outcome: "paid",
      },
    );
    const completed = await deliveredEvent("checkout.session.completed", sessionId);
    await sim(`/events/${completed.id}/deliver`, { times: 2 });

    const [, receipt] = await portal.inbox.waitForMessages(email, 2);
    expect(receipt!.subject).toBe("Receipt: 25.00 USD for 19,230 credits");
    expect(receipt!.text).toContain("Thank you for your payment of 25.00 USD.");
    expect(receipt!.text).toContain(
      `19,230 credits were added to your key ${keyId}; its balance is now 19,563 credits.`,
    );
    expect(receipt!.text).toMatch(/Your card receipt: http\S+/);
    expect(receipt!.html).toContain("Your card receipt</a>");
    expect(receipt!.text).toContain("always sent");

    await sim(`/payment_intents/${intent}/refund`, {});
    const refunded = await deliveredEvent("charge.refunded", intent);
    await sim(`/events/${refunded.id}/deliver`, { times: 2 });
    const [, , reversal] = await portal.inbox.waitForMessages(email, 3);
    expect(reversal!.subject).toBe("A payment was refunded: 25.00 USD");
    expect(reversal!.text).toContain("19,230 credits it bought were taken back");
    // The simulator answers a re-delivery once the portal has answered it: two more of each added nothing.
    expect(await portal.inbox.messagesTo(email)).toHaveLength(3);
  });

  it("sends the receipt exactly once when the mail server refuses the first attempt", async () => {
    const email = `refused-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId } = await client.createKey("buyer");
    const answer = await client.submit("/billing", "/billing/checkout", {
      key_id: keyId,
      amount: "25",
      action: "pay",
    });
    const sessionId = /\/c\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(answer.location ?? "")![1]!;
    portal.smtp!.refuseNext(1);
    await sim(`/checkout/sessions/${sessionId}/pay`, { outcome: "paid" });

    const completed = await deliveredEvent("checkout.session.completed", sessionId);
    // The first delivery was answered 503 (the receipt not sent yet), a later one 200.
    expect(completed.deliveries[0]!.status).toBe(503);
    expect(portal.smtp!.refused).toBe(1);
    const [, receipt] = await portal.inbox.waitForMessages(email, 2);
    expect(receipt!.subject).toBe("Receipt: 25.00 USD for 19,230 credits");
    expect(receipt!.text).toContain(`its balance is now 19,563 credits.`);
    await sim(`/events/${completed.id}/deliver`, { times: 2 });
    expect(await stack.balanceOf(keyId)).toBe(19_563);
    // A test notice sent now is the next and last message: the receipt came once.
    await client.submit("/notifications", "/notifications/test", {});
    const all = await portal.inbox.waitForMessages(email, 3);
    expect(all.map((mail) => mail.subject).slice(1)).toEqual([
      "Receipt: 25.00 USD for 19,230 credits",
      "A test notice from the Reddit Data API",
    ]);
  });

  it("sends the refund notice exactly once, and takes the credits back once, when the mail server refuses the first attempt", async () => {
    const email = `refund-refused-${randomBytes(4).toString("hex")}@example.com`;
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId } = await client.createKey("buyer");
    const answer = await client.submit("/billing", "/billing/checkout", {
      key_id: keyId,
      amount: "25",
      action: "pay",
    });
    const sessionId = /\/c\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(answer.location ?? "")![1]!;
    const { payment_intent: intent } = await sim<{ payment_intent: string }>(
      `/checkout/sessions/${sessionId}/pay`,
      { outcome: "paid" },
    );
    await portal.inbox.waitForMessages(email, 2);
    expect(await stack.balanceOf(keyId)).toBe(19_563);

    const refusedBefore = portal.smtp!.refused;
    portal.smtp!.refuseNext(1);
    await sim(`/payment_intents/${intent}/refund`, {});
    const refunded = await deliveredEvent("charge.refunded", intent);
    // The first delivery took the credits back but its notice was refused (503); a later one sent it.
    expect(refunded.deliveries[0]!.status).toBe(503);
    expect(portal.smtp!.refused).toBe(refusedBefore + 1);
    const [, , reversal] = await portal.inbox.waitForMessages(email, 3);
    expect(reversal!.subject).toBe("A payment was refunded: 25.00 USD");
    expect(reversal!.text).toContain(
      `19,230 credits it bought were taken back from your key ${keyId}; its balance is now 333 credits.`,
    );
    await sim(`/events/${refunded.id}/deliver`, { times: 2 });
    expect(await stack.balanceOf(keyId)).toBe(333);
    // A test notice sent now is the next and last message: the refund's notice came once.
    await client.submit("/notifications", "/notifications/test", {});
    const all = await portal.inbox.waitForMessages(email, 4);
    expect(all.map((mail) => mail.subject).slice(1)).toEqual([
      "Receipt: 25.00 USD for 19,230 credits",
      "A payment was refunded: 25.00 USD",
      "A test notice from the Reddit Data API",
    ]);
  });
});
