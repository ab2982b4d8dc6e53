/**
 * The API calls the portal makes, at Stripe's paths and in Stripe's shapes:
 * `POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/:id`, `GET /v1/payment_intents/:id`
 * (with `expand[]=latest_charge`). Every call needs `Authorization: Bearer <the secret key>`; a POST
 * with an `Idempotency-Key` seen before is answered as the first time (or refused if its
 * parameters differ), as Stripe does.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { newId } from "../ids.ts";
import type { PaymentsAccount } from "../payments.ts";
import {
  createSessionParamsSchema,
  retrieveParamsSchema,
  retrieveSessionParamsSchema,
  stripeParamError,
} from "./params.ts";
import { missingResource, sendStripeError, stripeErrorPayload } from "./stripe-errors.ts";

export interface ApiDeps {
  readonly account: PaymentsAccount;
  readonly secretKey: string;
}

interface Remembered {
  readonly fingerprint: string;
  readonly status: number;
  readonly body: unknown;
}

export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const remembered = new Map<string, Remembered>();
  app.register(async (api) => {
    api.addHook("onRequest", async (request, reply) => {
      reply.header("request-id", newId("req_", 14));
      const version = request.headers["stripe-version"];
      if (typeof version === "string") reply.header("stripe-version", version);
      const problem = authProblem(request, deps.secretKey);
      if (problem) return sendStripeError(reply, 401, { type: "invalid_request_error", message: problem });
    });
    api.post("/v1/checkout/sessions", (request, reply) =>
      idempotent(remembered, request, reply, () => createSession(deps, request.body)),
    );
    api.get<{ Params: { id: string } }>("/v1/checkout/sessions/:id", (request, reply) => {
      const parsed = parse(retrieveSessionParamsSchema, request.query);
      if (!parsed.ok) return sendStripeError(reply, 400, parsed.error);
      const record = deps.account.sessions.get(request.params.id);
      if (!record)
        return sendStripeError(reply, 404, missingResource("checkout.session", request.params.id, "session"));
      return reply.send(record.session);
    });
    api.get<{ Params: { id: string } }>("/v1/payment_intents/:id", (request, reply) => {
      const parsed = parse(retrieveParamsSchema, request.query);
      if (!parsed.ok) return sendStripeError(reply, 400, parsed.error);
      const intent = deps.account.intents.get(request.params.id);
      if (!intent)
        return sendStripeError(reply, 404, missingResource("payment_intent", request.params.id, "intent"));
      const expanded =
        parsed.value.expand?.includes("latest_charge") && typeof intent.latest_charge === "string";
      const latest = expanded
        ? (deps.account.charges.get(intent.latest_charge as string) ?? null)
        : intent.latest_charge;
      return reply.send({ ...intent, latest_charge: latest });
    });
  });
}

type Outcome = { status: number; body: unknown };

function createSession(deps: ApiDeps, body: unknown): Outcome {
  const parsed = parse(createSessionParamsSchema, body ?? {});
  if (!parsed.ok) return { status: 400, body: stripeErrorPayload(parsed.error) };
  return { status: 200, body: deps.account.createSession(parsed.value) };
}

function parse<S extends z.ZodType>(schema: S, input: unknown) {
  const parsed = schema.safeParse(input, { reportInput: true });
  return parsed.success
    ? ({ ok: true, value: parsed.data } as const)
    : ({ ok: false, error: stripeParamError(parsed.error) } as const);
}

/** Stripe's idempotency: the same key and parameters replay the first answer; other parameters are refused. */
function idempotent(
  remembered: Map<string, Remembered>,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Outcome,
) {
  const key = request.headers["idempotency-key"];
  const fingerprint = createHash("sha256")
    .update(JSON.stringify(request.body ?? {}))
    .digest("hex");
  const prior = typeof key === "string" ? remembered.get(key) : undefined;
  if (prior && prior.fingerprint !== fingerprint)
    return sendStripeError(reply, 400, {
      type: "idempotency_error",
      message:
        "Keys for idempotent requests can only be used with the same parameters they were first used with.",
    });
  if (prior) return reply.code(prior.status).header("idempotent-replayed", "true").send(prior.body);
  const outcome = run();
  if (typeof key === "string") remembered.set(key, { fingerprint, ...outcome });
  if (typeof key === "string") reply.header("idempotency-key", key);
  return reply.code(outcome.status).send(outcome.body);
}

function authProblem(request: FastifyRequest, secretKey: string): string | undefined {
  const header = request.headers.authorization;
  if (!header)
    return "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').";
  const presented = /^Bearer (\S+)$/.exec(header)?.[1] ?? "";
  const [a, b] = [Buffer.from(presented), Buffer.from(secretKey)];
  if (a.length === b.length && timingSafeEqual(a, b)) return undefined;
  return `Invalid API Key provided: ${presented.slice(0, 8)}${"*".repeat(Math.max(0, presented.length - 12))}${presented.slice(-4)}`;
}
