/**
 * The simulator through the real `stripe` SDK, pointed at it with the SDK's documented host, port
 * and protocol settings: the calls the portal makes answer in Stripe's shapes and with Stripe's
 * errors, the hosted page pays or declines, and every webhook verifies with the SDK's own
 * `constructEvent`, retried while the endpoint fails, re-deliverable, in any order.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { waitFor } from "@rda/service-kit/testing";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPaymentsSim, type StripeEvent, startPaymentsSim } from "../src/index.ts";

const SECRET_KEY = "sk_test_simulator_tests";
const WEBHOOK_SECRET = "whsec_simulator_tests";

/** A webhook endpoint that records what it receives and answers 500 to the next `failures` posts of one event type. */
function startReceiver() {
  const received: { payload: string; signature: string }[] = [];
  let failures = 0;
  let failing = "";
  const server: Server = createServer((request, response) => {
    let payload = "";
    request.on("data", (chunk) => {
      payload += chunk;
    });
    request.on("end", () => {
      received.push({ payload, signature: String(request.headers["stripe-signature"]) });
      const fail = failures > 0 && (JSON.parse(payload) as { type: string }).type === failing;
      if (fail) failures -= 1;
      response.statusCode = fail ? 500 : 200;
      response.end();
    });
  });
  return {
    received,
    failNext: (n: number, type: string) => {
      [failures, failing] = [n, type];
    },
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sim: RunningPaymentsSim;
let stripe: Stripe;
const receiver = startReceiver();

beforeAll(async () => {
  const url = await receiver.listen();
  sim = await startPaymentsSim({
    secretKey: SECRET_KEY,
    webhooks: { url, secret: WEBHOOK_SECRET, attempts: 4, retryBaseMs: 50, timeoutMs: 2_000 },
  });
  stripe = new Stripe(SECRET_KEY, {
    host: "127.0.0.1",
    port: sim.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
});
afterAll(async () => {
  await sim?.close();
  await receiver.close();
});

const sessionParams = (cents: number): Stripe.Checkout.SessionCreateParams => ({
  mode: "payment",
  line_items: [
    {
      quantity: 1,
      price_data: { currency: "usd", unit_amount: cents, product_data: { name: "19,230 API credits" } },
    },
  ],
  client_reference_id: "acct_0123456789abcdef",
  metadata: { account_id: "acct_0123456789abcdef", key_id: "key_0123456789abcdef" },
  payment_intent_data: { metadata: { account_id: "acct_0123456789abcdef", key_id: "key_0123456789abcdef" } },
  success_url: "http://portal.test/billing/return?session_id={CHECKOUT_SESSION_ID}",
  cancel_url: "http://portal.test/billing?canceled=1",
});

/** Every delivery so far of events of `type`, each verified by the SDK with the signing secret. */
function delivered(type: string): Stripe.Event[] {
  return receiver.received
    .map(({ payload, signature }) => stripe.webhooks.constructEvent(payload, signature, WEBHOOK_SECRET))
    .filter((event) => event.type === type);
}

async function simEvents(): Promise<(StripeEvent & { deliveries: { status: number }[] })[]> {
  return ((await (await fetch(`${sim.url}/__sim/events`)).json()) as { data: never[] }).data;
}

const control = (path: string, body: object = {}) =>
  fetch(`${sim.url}/__sim${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Pays on the hosted page as a browser would: the form's Pay button. */
const payOnPage = (session: Stripe.Checkout.Session, action = "pay") =>
  fetch(session.url!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `action=${action}`,
    redirect: "manual",
  });

describe("the payments simulator through the stripe SDK", () => {
  it("creates and retrieves a Checkout Session from nested form parameters, with a hosted page", async () => {
    const session = await stripe.checkout.sessions.create(sessionParams(2_500));
    expect(session).toMatchObject({
      object: "checkout.session",
      mode: "payment",
      amount_total: 2_500,
      currency: "usd",
      status: "open",
      payment_status: "unpaid",
      payment_intent: null,
      client_reference_id: "acct_0123456789abcdef",
      metadata: { key_id: "key_0123456789abcdef" },
    });
    expect(session.id).toMatch(/^cs_test_[A-Za-z0-9]+$/);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toEqual(session);
    const page = await fetch(session.url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("19,230 API credits");
    expect(html).toContain("Pay $25.00");
  });

  it("answers with Stripe's errors, which the SDK raises as its own error classes", async () => {
    const wrongKey = new Stripe("sk_test_not_the_key", {
      host: "127.0.0.1",
      port: sim.port,
      protocol: "http",
    });
    await expect(wrongKey.checkout.sessions.retrieve("cs_test_x")).rejects.toMatchObject({
      type: "StripeAuthenticationError",
      statusCode: 401,
    });
    const unknown = { ...sessionParams(2_500), colour: "blue" } as Stripe.Checkout.SessionCreateParams;
    await expect(stripe.checkout.sessions.create(unknown)).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "parameter_unknown",
      param: "colour",
    });
    const missing = sessionParams(2_500);
    delete (missing.line_items![0]!.price_data as { currency?: string }).currency;
    await expect(stripe.checkout.sessions.create(missing)).rejects.toMatchObject({
      code: "parameter_missing",
      param: "line_items[0][price_data][currency]",
    });
    await expect(stripe.checkout.sessions.retrieve("cs_test_missing000")).rejects.toMatchObject({
      statusCode: 404,
      code: "resource_missing",
    });
  });

  it("replays a create under the same Idempotency-Key and refuses it with other parameters", async () => {
    const idempotencyKey = `test-${Date.now()}`;
    const first = await stripe.checkout.sessions.create(sessionParams(500), { idempotencyKey });
    expect((await stripe.checkout.sessions.create(sessionParams(500), { idempotencyKey })).id).toBe(first.id);
    await expect(
      stripe.checkout.sessions.create(sessionParams(600), { idempotencyKey }),
    ).rejects.toMatchObject({
      type: "StripeIdempotencyError",
    });
  });

  it("pays on the hosted page: redirect to success_url, a signed checkout.session.completed, a receipt", async () => {
    const session = await stripe.checkout.sessions.create(sessionParams(2_500));
    const paid = await payOnPage(session);
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://portal.test/billing/return?session_id=${session.id}`);
    const completed = await waitFor(
      () =>
        delivered("checkout.session.completed").find(
          (e) => (e.data.object as { id: string }).id === session.id,
        ),
      "the completed event",
    );
    const object = completed!.data.object as Stripe.Checkout.Session;
    expect(object).toMatchObject({ payment_status: "paid", status: "complete", amount_total: 2_500 });
    const intent = await stripe.paymentIntents.retrieve(object.payment_intent as string, {
      expand: ["latest_charge"],
    });
    expect(intent).toMatchObject({
      status: "succeeded",
      amount_received: 2_500,
      metadata: { key_id: "key_0123456789abcdef" },
    });
    const receipt = await fetch((intent.latest_charge as Stripe.Charge).receipt_url!);
    expect(await receipt.text()).toContain("$25.00");
    expect((await payOnPage(session)).status).toBe(409);
  });

  it("declines on the hosted page: the session stays open and no money moves", async () => {
    const session = await stripe.checkout.sessions.create(sessionParams(2_500));
    const declined = await payOnPage(session, "decline");
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain("Your card was declined.");
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({
      status: "open",
      payment_status: "unpaid",
    });
    const failed = await waitFor(
      async () =>
        (await simEvents()).find(
          (e) => e.type === "payment_intent.payment_failed" && e.deliveries.length > 0,
        ),
      "the failed payment's event",
    );
    expect(failed!.data.object).toMatchObject({ status: "requires_payment_method", amount_received: 0 });
  });

  it("retries a delivery while the endpoint fails, with a fresh signature each time", async () => {
    receiver.failNext(2, "checkout.session.completed");
    const session = await stripe.checkout.sessions.create(sessionParams(500));
    await control(`/checkout/sessions/${session.id}/pay`);
    const event = await waitFor(async () => {
      const found = (await simEvents()).find(
        (e) => e.type === "checkout.session.completed" && (e.data.object as { id: string }).id === session.id,
      );
      return found && found.deliveries.length >= 3 ? found : undefined;
    }, "three attempts");
    expect(event!.deliveries.map((d) => d.status)).toEqual([500, 500, 200]);
  });

  it("refunds in parts and disputes with cumulative amounts, and can deliver held events in reverse", async () => {
    const session = await stripe.checkout.sessions.create(sessionParams(2_500));
    await control("/webhooks/hold");
    const paid = (await (
      await control(`/checkout/sessions/${session.id}/pay`)
    ).json()) as Stripe.Checkout.Session;
    const intent = paid.payment_intent as string;
    expect((await control(`/payment_intents/${intent}/refund`, { amount: 1_000 })).status).toBe(200);
    expect((await control(`/payment_intents/${intent}/refund`, { amount: 5_000 })).status).toBe(400);
    await control(`/payment_intents/${intent}/dispute`);
    const before = receiver.received.length;
    await control("/webhooks/release", { order: "reverse" });
    const order = receiver.received
      .slice(before)
      .map(
        ({ payload, signature }) => stripe.webhooks.constructEvent(payload, signature, WEBHOOK_SECRET).type,
      );
    expect(order.indexOf("charge.dispute.created")).toBeLessThan(order.indexOf("checkout.session.completed"));
    const refunded = order.filter((type) => type === "charge.refunded");
    expect(refunded).toHaveLength(1);
    const charge = delivered("charge.refunded").at(-1)!.data.object as Stripe.Charge;
    expect(charge).toMatchObject({
      amount: 2_500,
      amount_refunded: 1_000,
      refunded: false,
      payment_intent: intent,
    });
    const dispute = delivered("charge.dispute.created").at(-1)!.data.object as Stripe.Dispute;
    expect(dispute).toMatchObject({ amount: 1_500, payment_intent: intent, status: "needs_response" });
  });

  it("re-delivers an event on demand, and one signed an hour ago fails the SDK's tolerance check", async () => {
    const [event] = (await simEvents()).filter((e) => e.type === "checkout.session.completed");
    const again = (await (await control(`/events/${event!.id}/deliver`, { times: 3 })).json()) as {
      deliveries: { status: number }[];
    };
    expect(again.deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    const stale = (await (
      await control(`/events/${event!.id}/signed`, { timestamp: Math.floor(Date.now() / 1000) - 3_600 })
    ).json()) as { payload: string; signature: string };
    expect(() => stripe.webhooks.constructEvent(stale.payload, stale.signature, WEBHOOK_SECRET)).toThrow(
      /tolerance/,
    );
  });
});

describe("the simulator process", () => {
  it("refuses to start with a live secret key, naming STRIPE_SECRET_KEY", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: join(import.meta.dirname, ".."),
      env: {
        ...process.env,
        PAYMENTS_SIM_PORT: "0",
        STRIPE_SECRET_KEY: "sk_live_0123456789",
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("STRIPE_SECRET_KEY");
  });
});
