/**
 * Buying credits end to end, against the whole stack with the payments simulator in Stripe's place
 * (the portal's real `stripe` SDK pointed at it): the ladder's figures from the amount paid, refused
 * amounts, every event credited once however it is delivered, forged and stale deliveries refused,
 * declines, refunds, disputes and out-of-order delivery exact, and `pnpm admin ledger verify` clean
 * at the end.
 */
import { randomBytes } from "node:crypto";
import { admitReplySchema } from "@rda/contracts";
import { hashApiKey, requestJson } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { runAdminAsync } from "../stack/support.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let portalUrl: string;
let simUrl: string;

beforeAll(async () => {
  stack = await startStack({ payments: true });
  portalUrl = stack.portal!.url;
  simUrl = stack.payments!.sim.url;
}, 90_000);
afterAll(() => stack?.stop());

interface Developer {
  readonly client: BrowserlessClient;
  readonly keyId: string;
  readonly secret: string;
}

/** A new account, signed in by its emailed link, with one key (333 free credits). */
async function developer(): Promise<Developer> {
  const email = `buyer-${randomBytes(4).toString("hex")}@example.com`;
  const client = new BrowserlessClient(portalUrl);
  await client.signUp(email, stack.portal!.inbox);
  const { id: keyId, secret } = await client.createKey("buyer");
  return { client, keyId, secret };
}

/** "Pay" on the billing page: the answer, and the Checkout Session it redirected to. */
async function checkout(dev: Developer, amount: string, keyId = dev.keyId) {
  const answer = await dev.client.submit("/billing", "/billing/checkout", {
    key_id: keyId,
    amount,
    action: "pay",
  });
  const sessionId = /\/c\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(answer.location ?? "")?.[1];
  return { answer, sessionId };
}

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

/** Pays a session on the simulator (as its page's Pay button does); the PaymentIntent id. */
async function pay(sessionId: string, outcome = "paid"): Promise<string> {
  const session = await sim<{ payment_intent: string }>(`/checkout/sessions/${sessionId}/pay`, { outcome });
  return session.payment_intent;
}

/** The event of `type` about `objectId` (a session, or a PaymentIntent for charges and disputes). */
async function eventOf(type: string, objectId: string, delivered = true): Promise<SimEvent> {
  const found = await waitFor(async () => {
    const { data } = await sim<{ data: SimEvent[] }>("/events");
    return data.findLast(
      (event) =>
        event.type === type &&
        [event.data.object.id, event.data.object.payment_intent].includes(objectId) &&
        (!delivered || event.deliveries.some((d) => d.status === 200)),
    );
  }, `${type} for ${objectId} delivered`);
  return found!;
}

const sessionCount = async () => (await sim<{ data: unknown[] }>("/checkout/sessions")).data.length;

describe("buying credits with the payments simulator", () => {
  it.each([
    ["5", 3_333],
    ["24.99", 16_660],
    ["25", 19_230],
    ["49.99", 38_453],
    ["50", 41_666],
    ["99.99", 83_325],
    ["100", 100_000],
    ["10,000", 10_000_000],
  ])("credits $%s with %d credits, priced from the amount paid", async (amount, credits) => {
    const dev = await developer();
    const { answer, sessionId } = await checkout(dev, amount);
    expect(answer.status).toBe(303);
    await pay(sessionId!);
    await eventOf("checkout.session.completed", sessionId!);
    expect(await stack.balanceOf(dev.keyId)).toBe(333 + credits);
  });

  it.each([
    ["4.99", "The smallest top-up is $5.00."],
    ["10000.01", "The largest top-up is $10,000.00 at a time"],
    ["25 dollars", "Enter an amount in US dollars, such as 25 or 12.50."],
  ])("refuses %s with a clear message and creates no session", async (amount, message) => {
    const dev = await developer();
    const before = await sessionCount();
    const { answer } = await checkout(dev, amount);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(message);
    expect(await sessionCount()).toBe(before);
  });

  it("refuses a checkout posted without its form's CSRF token and creates no session", async () => {
    const dev = await developer();
    const before = await sessionCount();
    const forged = await dev.client.post("/billing/checkout", {
      key_id: dev.keyId,
      amount: "25",
      action: "pay",
    });
    expect(forged.status).toBe(403);
    expect(await sessionCount()).toBe(before);
  });

  it("refuses another account's key and creates no session", async () => {
    const [dev, other] = [await developer(), await developer()];
    const before = await sessionCount();
    const { answer } = await checkout(dev, "25", other.keyId);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("Choose one of your active keys.");
    expect(await sessionCount()).toBe(before);
  });

  it("credits once when the event is delivered 3 more times and to two portal replicas at once", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "25");
    await pay(sessionId!);
    const completed = await eventOf("checkout.session.completed", sessionId!);
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563);
    const again = await sim<{ deliveries: { status: number }[] }>(`/events/${completed.id}/deliver`, {
      times: 3,
    });
    expect(again.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    const replica = await stack.payments!.startPortalReplica();
    const copy = await sim<{ payload: string; signature: string }>(`/events/${completed.id}/signed`, {});
    const posts = [portalUrl, replica, portalUrl, replica].map((base) =>
      fetch(`${base}/stripe/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": copy.signature },
        body: copy.payload,
      }),
    );
    expect((await Promise.all(posts)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563);
    const page = await dev.client.get("/billing");
    expect(page.body.match(/data-payment-id=/g)).toHaveLength(1);
  });

  it("answers 503 while billing is down, and credits once when Stripe's retry finds it back", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "25");
    await stack.stopBilling();
    try {
      await pay(sessionId!);
      await waitFor(async () => {
        const { data } = await sim<{ data: SimEvent[] }>("/events");
        const event = data.find(
          (e) => e.type === "checkout.session.completed" && e.data.object.id === sessionId,
        );
        return event?.deliveries.some((d) => d.status === 503);
      }, "a refused delivery");
    } finally {
      await stack.startBilling();
    }
    const completed = await eventOf("checkout.session.completed", sessionId!);
    expect(completed.deliveries[0]!.status).toBe(503);
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563);
  });

  it("refuses unsigned, forged, tampered and stale deliveries with 400 and credits nothing", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "25");
    await sim("/webhooks/hold", {});
    await pay(sessionId!);
    const held = await eventOf("checkout.session.completed", sessionId!, false);
    const copy = await sim<{ payload: string; signature: string }>(`/events/${held.id}/signed`, {});
    const post = (payload: string, signature?: string) =>
      fetch(`${portalUrl}/stripe/webhook`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(signature ? { "stripe-signature": signature } : {}),
        },
        body: payload,
      });
    const forged = Stripe.webhooks.generateTestHeaderString({
      payload: copy.payload,
      secret: "whsec_not_the_secret",
    });
    const tampered = copy.payload.replace('"amount_total": 2500', '"amount_total": 999999');
    const stale = await sim<{ payload: string; signature: string }>(`/events/${held.id}/signed`, {
      timestamp: Math.floor(Date.now() / 1000) - 3_600,
    });
    for (const answer of [
      await post(copy.payload),
      await post(copy.payload, forged),
      await post(tampered, copy.signature),
      await post(stale.payload, stale.signature),
    ]) {
      expect(answer.status).toBe(400);
      expect(await answer.json()).toHaveProperty("error");
    }
    expect(tampered).not.toBe(copy.payload);
    expect(await stack.balanceOf(dev.keyId)).toBe(333);
    await sim("/webhooks/release", { order: "sent" });
    await eventOf("checkout.session.completed", sessionId!);
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563);
  });

  it("credits nothing for a declined card, and nothing for a delayed payment until it succeeds", async () => {
    const dev = await developer();
    const declined = await checkout(dev, "25");
    const declinedIntent = await pay(declined.sessionId!, "declined");
    await eventOf("payment_intent.payment_failed", declinedIntent);
    const later = await checkout(dev, "5");
    await pay(later.sessionId!, "delayed");
    await eventOf("checkout.session.completed", later.sessionId!);
    expect(await stack.balanceOf(dev.keyId)).toBe(333);
    await sim(`/checkout/sessions/${later.sessionId}/async`, { result: "succeeded" });
    await eventOf("checkout.session.async_payment_succeeded", later.sessionId!);
    expect(await stack.balanceOf(dev.keyId)).toBe(333 + 3_333);
  });

  it("takes back min(credits bought, balance) on a full refund after part was spent, never below 0", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "5");
    const intent = await pay(sessionId!);
    await eventOf("checkout.session.completed", sessionId!);
    // Spend 900 of the 3,666 credits, as the gateway admits requests (one token left in the bucket).
    for (let i = 0; i < 9; i++) {
      const admitted = await requestJson(
        stack.nats,
        stack.subjects.billing.admit,
        {
          key_id: dev.keyId,
          key_hash: hashApiKey(dev.secret),
          request_id: `spend-${randomBytes(6).toString("hex")}`,
          operation: "listPosts",
          credits: 100,
          pending_ms: 60_000,
        },
        admitReplySchema,
        5_000,
      );
      expect(admitted.ok && admitted.value.outcome).toBe("admitted");
    }
    expect(await stack.balanceOf(dev.keyId)).toBe(2_766);
    await sim(`/payment_intents/${intent}/refund`, {});
    await eventOf("charge.refunded", intent);
    expect(await stack.balanceOf(dev.keyId)).toBe(0);
    const page = await dev.client.get("/billing");
    expect(page.body).toContain("Refunded");
    expect(page.body).toContain("2,766 taken back");
    const api = await fetch(`${stack.gatewayUrl}/v1/posts?subreddit=typescript&limit=1`, {
      headers: { "x-api-key": dev.secret },
    });
    expect(api.status).toBe(402);
  });

  it("takes back each partial refund's credits once, and the rest when the payment is disputed", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "25");
    const intent = await pay(sessionId!);
    await eventOf("checkout.session.completed", sessionId!);
    await sim(`/payment_intents/${intent}/refund`, { amount: 1_000 });
    const refunded = await eventOf("charge.refunded", intent);
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563 - 7_692);
    await sim(`/events/${refunded.id}/deliver`, { times: 2 });
    expect(await stack.balanceOf(dev.keyId)).toBe(19_563 - 7_692);
    expect((await dev.client.get("/billing")).body).toContain("Partially refunded ($10.00)");
    await sim(`/payment_intents/${intent}/dispute`, {});
    await eventOf("charge.dispute.created", intent);
    expect(await stack.balanceOf(dev.keyId)).toBe(333);
    expect((await dev.client.get("/billing")).body).toContain("Disputed");
  });

  it("ends exact when a refund is delivered before the payment it refunds", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "50");
    await sim("/webhooks/hold", {});
    const intent = await pay(sessionId!);
    await sim(`/payment_intents/${intent}/refund`, { amount: 2_500 });
    await sim("/webhooks/release", { order: "reverse" });
    await eventOf("checkout.session.completed", sessionId!);
    await eventOf("charge.refunded", intent);
    // 41,666 bought, half refunded: 20,833 taken back.
    expect(await stack.balanceOf(dev.keyId)).toBe(333 + 41_666 - 20_833);
  });

  it("lists the key's payments in pnpm admin keys show, and pnpm admin ledger verify is clean", async () => {
    const dev = await developer();
    const { sessionId } = await checkout(dev, "25");
    await pay(sessionId!);
    await eventOf("checkout.session.completed", sessionId!);
    const env = { ...process.env, RDA_NAMESPACE: stack.namespace };
    const shown = await runAdminAsync(["keys", "show", dev.keyId, "--json"], env);
    expect(shown.status, shown.stderr).toBe(0);
    const key = JSON.parse(shown.stdout) as { credits_balance: number; payments: object[] };
    expect(key.credits_balance).toBe(19_563);
    expect(key.payments).toEqual([
      expect.objectContaining({
        amount_cents: 2_500,
        credits: 19_230,
        status: "paid",
        checkout_session_id: sessionId,
      }),
    ]);
    const verified = await runAdminAsync(["ledger", "verify", "--json"], env);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, mismatches: [] });
  });
});
