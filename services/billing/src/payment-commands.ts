/**
 * Card payments as billing answers them to the developer portal (apply, reverse) and to the portal
 * and the operator CLI (list): proven by Stripe's signed event when billing holds the webhook
 * secret (payment-evidence.ts), counted, and logged by key and payment id (never an amount as the
 * only trace: the journal has each change).
 */
import type { ApplyPaymentRequest, ReversePaymentRequest } from "@rda/contracts";
import type { KeyCommandDeps } from "./key-commands.ts";
import { applyPayment, listPayments, reversePayment } from "./ledger/index.ts";
import { type Evidence, paymentEvidence, reversalEvidence } from "./payment-evidence.ts";

export interface PaymentCommandDeps extends KeyCommandDeps {
  /** STRIPE_WEBHOOK_SECRET: with it, only events Stripe signed move money. */
  readonly webhookSecret: string | undefined;
}

export async function apply(deps: PaymentCommandDeps, request: ApplyPaymentRequest) {
  if (deps.webhookSecret) {
    const evidence = paymentEvidence(deps.webhookSecret, request);
    if (!evidence.ok) return refuse(deps, evidence, request);
  }
  const reply = await applyPayment(deps.context, request);
  deps.metrics.payments.inc({ outcome: reply.outcome });
  if (reply.outcome === "applied") {
    deps.metrics.paymentCents.inc(request.amount_cents);
    deps.metrics.paymentCreditsRemoved.inc(reply.credits_removed);
  }
  const log = reply.outcome === "not_found" ? deps.logger.error : deps.logger.info;
  log.call(
    deps.logger,
    {
      key_id: request.key_id,
      account_id: request.account_id,
      payment_id: request.payment_id,
      usd_cents: request.amount_cents,
      ...reply,
    },
    reply.outcome === "not_found" ? "payment for an unknown key: refund it" : "payment handled",
  );
  return reply;
}

export async function reverse(deps: PaymentCommandDeps, request: ReversePaymentRequest) {
  if (deps.webhookSecret) {
    const evidence = reversalEvidence(deps.webhookSecret, request);
    if (!evidence.ok) return refuse(deps, evidence, request);
  }
  const reply = await reversePayment(deps.context, request);
  deps.metrics.payments.inc({ outcome: reply.outcome });
  if (reply.outcome !== "not_found") deps.metrics.paymentCreditsRemoved.inc(reply.credits_removed);
  deps.logger.info(
    {
      key_id: request.key_id,
      payment_id: request.payment_id,
      kind: request.kind,
      usd_cents: request.amount_cents,
      ...reply,
    },
    "payment reversal handled",
  );
  return reply;
}

export async function list(deps: KeyCommandDeps, request: { account_id: string } | { key_id: string }) {
  const { redis, keys } = deps.context;
  const keyIds =
    "key_id" in request ? [request.key_id] : await redis.lrange(keys.accountKeys(request.account_id), 0, -1);
  return { payments: await listPayments(deps.context, keyIds) };
}

/** Nothing changes; logged as an error, since only a misconfiguration or an intruder gets here. */
function refuse(
  deps: PaymentCommandDeps,
  evidence: Extract<Evidence, { ok: false }>,
  request: ApplyPaymentRequest | ReversePaymentRequest,
) {
  deps.metrics.payments.inc({ outcome: "unverified" });
  deps.logger.error(
    {
      key_id: request.key_id,
      account_id: request.account_id,
      payment_id: request.payment_id,
      usd_cents: request.amount_cents,
      reason: evidence.error,
    },
    "payment request refused: Stripe's signed event does not prove it",
  );
  return { outcome: "unverified" as const, reason: evidence.error };
}
