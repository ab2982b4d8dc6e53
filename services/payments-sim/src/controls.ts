/**
 * Test controls under `/__sim/` (never part of Stripe's API): pay or decline without a browser,
 * settle a delayed payment, refund or dispute a payment, list events with their delivery attempts,
 * re-deliver an event (optionally with an old signature timestamp), hand out a signed copy, and hold
 * deliveries to release them in another order. JSON in and out; a bad request is 400 `{error}`.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { PaymentStateError, type PaymentsAccount } from "./payments.ts";
import type { WebhookDeliverer } from "./webhooks/deliverer.ts";

const payBody = z.strictObject({ outcome: z.enum(["paid", "declined", "delayed"]).default("paid") });
const laterBody = z.strictObject({ result: z.enum(["succeeded", "failed"]) });
const amountBody = z.strictObject({ amount: z.number().int().min(1).optional() });
const deliverBody = z.strictObject({
  times: z.number().int().min(1).max(20).default(1),
  /** Epoch seconds to sign with, e.g. an hour ago for a replay outside the tolerance. */
  timestamp: z.number().int().min(0).optional(),
});
const signedBody = z.strictObject({ timestamp: z.number().int().min(0).optional() });
const releaseBody = z.strictObject({ order: z.enum(["sent", "reverse"]).default("sent") });

export function registerControls(app: FastifyInstance, account: PaymentsAccount, webhooks: WebhookDeliverer) {
  const body = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> => {
    const parsed = schema.safeParse(input ?? {});
    if (!parsed.success) throw new PaymentStateError(`Invalid body: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  };
  const run = async (reply: FastifyReply, work: () => unknown) => {
    try {
      return reply.send(await work());
    } catch (error) {
      if (error instanceof PaymentStateError) return reply.code(400).send({ error: error.message });
      throw error;
    }
  };
  type Id = { Params: { id: string } };

  app.get("/__sim/checkout/sessions", async () => ({
    data: [...account.sessions.values()].map((record) => record.session),
  }));
  app.post<Id>("/__sim/checkout/sessions/:id/pay", (request, reply) =>
    run(reply, () => {
      const { outcome } = body(payBody, request.body);
      if (outcome === "declined") return account.decline(request.params.id);
      return outcome === "delayed" ? account.payLater(request.params.id) : account.pay(request.params.id);
    }),
  );
  app.post<Id>("/__sim/checkout/sessions/:id/async", (request, reply) =>
    run(reply, () =>
      account.settleLater(request.params.id, body(laterBody, request.body).result === "succeeded"),
    ),
  );
  app.post<Id>("/__sim/payment_intents/:id/refund", (request, reply) =>
    run(reply, () => account.refund(request.params.id, body(amountBody, request.body).amount)),
  );
  app.post<Id>("/__sim/payment_intents/:id/dispute", (request, reply) =>
    run(reply, () => account.dispute(request.params.id, body(amountBody, request.body).amount)),
  );
  app.get("/__sim/events", async () => ({
    data: account.events.map((event) => ({ ...event, deliveries: webhooks.attempts.get(event.id) ?? [] })),
  }));
  app.post<Id>("/__sim/events/:id/deliver", (request, reply) =>
    run(reply, async () => {
      const { times, timestamp } = body(deliverBody, request.body);
      const event = findEvent(account, request.params.id);
      const attempts = [];
      for (let i = 0; i < times; i++) attempts.push(await webhooks.deliver(event, { timestamp, once: true }));
      return { deliveries: attempts };
    }),
  );
  app.post<Id>("/__sim/events/:id/signed", (request, reply) =>
    run(reply, () =>
      webhooks.signed(findEvent(account, request.params.id), body(signedBody, request.body).timestamp),
    ),
  );
  app.post("/__sim/webhooks/hold", async () => {
    webhooks.hold();
    return { holding: true };
  });
  app.post("/__sim/webhooks/release", (request, reply) =>
    run(reply, async () => ({ delivered: await webhooks.release(body(releaseBody, request.body).order) })),
  );
}

function findEvent(account: PaymentsAccount, id: string) {
  const event = account.events.find((candidate) => candidate.id === id);
  if (!event) throw new PaymentStateError(`No such event: '${id}'`);
  return event;
}
