/**
 * Card payments as billing answers them to the developer portal (apply, reverse) and to the portal
 * and the operator CLI (list): counted, and logged by key and payment id (never an amount as the
 * only trace: the journal has each change).
 */
import type { ApplyPaymentRequest, ReversePaymentRequest } from "@rda/contracts";
import type { KeyCommandDeps } from "./key-commands.ts";
import { applyPayment, listPayments, reversePayment } from "./ledger/index.ts";

export async function apply(deps: KeyCommandDeps, request: ApplyPaymentRequest) {
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

export async function reverse(deps: KeyCommandDeps, request: ReversePaymentRequest) {
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
