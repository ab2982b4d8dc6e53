/**
 * Step 4: one credit, taken by billing (spec §1: the balance check is the debit). An ambiguous answer
 * (timeout, broken reply, billing's store failing) may have debited, so it is refunded at once;
 * billing applies a refund only against a recorded debit, once.
 */
import type { GatewayContext } from "../context.ts";
import type { KeyInfo } from "../key-directory.ts";
import { fail, type Step, succeed } from "./failure.ts";

export async function debitOneCredit(
  ctx: GatewayContext,
  key: KeyInfo,
  requestId: string,
): Promise<Step<number>> {
  const reply = await ctx.billing.debit(key.id, requestId);
  if (!reply.ok) {
    // No responders means nobody received the debit: nothing to refund.
    if (reply.failure !== "no_responders")
      ctx.refunds.refund({ key_id: key.id, request_id: requestId, reason: "service_unavailable" });
    return fail("service_unavailable", { retryAfterSeconds: 1, internal: reply.message });
  }
  const value = reply.value;
  switch (value.outcome) {
    case "debited":
      ctx.metrics.creditsDebited.inc();
      return succeed(value.balance);
    case "insufficient":
      return fail("insufficient_credits");
    case "unknown_key":
    case "revoked":
      ctx.keys.evict(key.id);
      return fail("invalid_api_key");
    case "failure":
      ctx.refunds.refund({ key_id: key.id, request_id: requestId, reason: "service_unavailable" });
      return fail("service_unavailable", { retryAfterSeconds: 1, internal: value.message });
  }
}
