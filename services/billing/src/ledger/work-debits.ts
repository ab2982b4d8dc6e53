/**
 * A work debit (docs/architecture.md#a-work-debits-life): the credits of one unit of background work
 * (an export page, a monitor's webhook batch), taken by the one debit of admission (`admitScript`)
 * with no bucket tokens, under the work's own id and with the work's deadline. So it
 * is pending in the pending index like a request's: its caller settles it once the work is done or
 * refunds it when the work failed, and the voider (debit-voider.ts) returns it when nobody did by
 * its deadline. A retry under the same id is charged once: `already_debited` while the debit is
 * pending (its deadline renewed: whoever asks is working on it) or settled, `already_ended` once it was refunded or voided (the work goes on under a new
 * id). A refusal says why, with what the caller needs to tell the key's account.
 */
import type { WorkDebitReply, WorkDebitRequest } from "@rda/contracts";
import { runAdmission } from "./admission.ts";
import type { LedgerContext } from "./context.ts";
import type { DebitFigures } from "./low-balance.ts";

/** The reply, and for a debit taken now its figures (for the lines it crossed). */
export interface WorkDebit {
  readonly reply: WorkDebitReply;
  readonly figures?: DebitFigures;
}

export async function debitWork(
  context: LedgerContext,
  request: Required<WorkDebitRequest>,
  deadline: number,
): Promise<WorkDebit | { readonly reply: { readonly outcome: "expired" } }> {
  const { reply, month } = await runAdmission(context, {
    keyId: request.key_id,
    keyHash: "",
    requestId: request.work_id,
    operation: request.operation,
    credits: request.credits,
    tokens: 0,
    pendingMs: request.pending_ms,
    deadline,
  });
  const [outcome, balance = 0, , , , , , cap = -1, spent = 0, line, round = 0] = reply;
  switch (outcome) {
    case "admitted":
      return {
        reply: { outcome: "debited", balance },
        figures: {
          balance,
          month_spend: { month, spent, cap: cap < 0 ? null : cap },
          low_balance_threshold: line,
          low_balance_round: round,
        },
      };
    case "already_debited":
    case "already_ended":
      return { reply: { outcome, balance } };
    case "insufficient":
      return {
        reply: {
          outcome,
          balance,
          account_id: await accountOf(context, request.key_id),
          low_balance_round: round,
        },
      };
    case "spend_cap_reached":
      return {
        reply: {
          outcome,
          balance,
          account_id: await accountOf(context, request.key_id),
          month_spend: { month, spent, cap: Math.max(0, cap) },
        },
      };
    case "unknown_key":
    case "revoked":
      return { reply: { outcome } };
    case "expired":
      return { reply: { outcome } };
    default:
      throw new Error(`unexpected work debit outcome '${outcome}'`);
  }
}

/** The key's portal account (whom a pause is told to), or null for an operator's key. */
async function accountOf(context: LedgerContext, keyId: string): Promise<string | null> {
  return (await context.redis.hget(context.keys.keyRecord(keyId), "account_id")) || null;
}
