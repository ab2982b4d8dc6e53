/**
 * Billing's subjects for work that spends on its own: an export job's per-page debit and a monitor's
 * per-batch webhook debit (both ledger/export-page-debits.ts). Kept apart from endpoints.ts so these
 * features add one entry there and nothing else.
 *
 * A page refused for lack of credits pauses its job (the exports worker retries it until credits
 * arrive): billing, which knows whose key it is, publishes the `spending_paused` notice event. Its
 * crossing is the job and page, the same on every retry of that pause, so the account hears of
 * each pause once. (A monitor's refused batch pauses the monitor, which tells the account itself.)
 * Both debits tell the lines they cross (low balance, 80 % and 100 % of the cap) as an admission
 * does (notice-events.ts), so a key spent by exports and monitors alone is told the same.
 */
import type { RequestHandler } from "@rda/service-kit";
import type { EndpointDeps } from "./endpoints.ts";
import { billingEndpoint, type EndpointOptions } from "./json-endpoint.ts";
import { debitExportPage, MONITOR_BATCH_OPERATION, type PageDebit } from "./ledger/export-page-debits.ts";
import { type Crossing, crossingsOf, publishCrossings } from "./notice-events.ts";

/** A page or batch is 1 credit (export-page-debits.ts). */
const PAGE_CREDITS = 1;

/** The lines this debit crossed, plus `also` (a pause), published; the reply for the wire. */
function told(deps: EndpointDeps, keyId: string, debit: PageDebit, also: Crossing[] = []) {
  const crossed = debit.figures ? crossingsOf(keyId, PAGE_CREDITS, debit.figures) : [];
  publishCrossings(deps, keyId, [...crossed, ...also]);
  return debit.reply;
}

/** `debit_id` is `<job>.p<page>.a<attempt>`: the pause is the job at that page, whatever the try. */
function pausedExport(debitId: string, balance: number): Crossing {
  const [job = debitId, page = ""] = debitId.split(".");
  return {
    kind: "spending_paused",
    crossing: `${job}.${page}:insufficient`,
    balance: Math.max(0, balance),
    what: `Your export ${job}`,
  };
}

/** `options`: the hot path's (the page debit is one short ledger script, like an admission). */
export function exportEndpoints(
  deps: EndpointDeps,
  options: EndpointOptions,
): { subject: string; handler: RequestHandler }[] {
  return [
    billingEndpoint(
      deps.subjects,
      "debitExportPage",
      async (r) => {
        const debit = await debitExportPage(deps.context, { keyId: r.key_id, debitId: r.debit_id });
        const { outcome, balance } = debit.reply;
        return told(
          deps,
          r.key_id,
          debit,
          outcome === "insufficient" ? [pausedExport(r.debit_id, balance)] : [],
        );
      },
      options,
    ),
    billingEndpoint(
      deps.subjects,
      "debitMonitorBatch",
      async (r) => {
        const debit = await debitExportPage(deps.context, {
          keyId: r.key_id,
          debitId: r.debit_id,
          operation: MONITOR_BATCH_OPERATION,
        });
        return told(deps, r.key_id, debit);
      },
      options,
    ),
  ];
}
