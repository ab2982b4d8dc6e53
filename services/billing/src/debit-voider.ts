/**
 * Voids pending debits whose deadline passed (ledger/pending-debits.ts): the request they paid for
 * was never answered — its gateway died, or lost billing — so its caller gets the credit back.
 * Every billing replica sweeps; the debit marker makes each void happen once.
 */
import { type Logger, type Loop, startLoop } from "@rda/service-kit";
import { type LedgerContext, voidDueDebits } from "./ledger/index.ts";
import type { BillingMetrics } from "./metrics.ts";

/** Debits voided per pass; a backlog is worked off in the following passes. */
const BATCH = 200;

export function startDebitVoider(
  context: LedgerContext,
  logger: Logger,
  intervalMs: number,
  metrics: BillingMetrics,
): Loop {
  return startLoop({
    name: "pending debit void",
    everyMs: intervalMs,
    logger,
    async turn() {
      const voided = await voidDueDebits(context, BATCH);
      if (voided > 0) {
        metrics.refunds.inc({ outcome: "voided" }, voided);
        logger.warn({ voided }, "voided pending debits nobody settled in time");
      }
    },
  });
}
