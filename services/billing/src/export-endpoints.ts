/**
 * Billing's subjects for work that spends on its own: an export job's per-page debit and a monitor's
 * per-batch webhook debit (both ledger/export-page-debits.ts). Kept apart from endpoints.ts so these
 * features add one entry there and nothing else.
 *
 * A page refused for lack of credits pauses its job (the exports worker retries it until credits
 * arrive): billing, which knows whose key it is, publishes the `spending_paused` notice event. Its
 * crossing is the job and page, the same on every retry of that pause, so the account hears of
 * each pause once. (A monitor's refused batch pauses the monitor, which tells the account itself.)
 */
import type { RequestHandler } from "@rda/service-kit";
import type { EndpointDeps } from "./endpoints.ts";
import { billingEndpoint, type EndpointOptions } from "./json-endpoint.ts";
import { debitExportPage, MONITOR_BATCH_OPERATION } from "./ledger/export-page-debits.ts";
import { type Crossing, publishCrossings } from "./notice-events.ts";

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
        const reply = await debitExportPage(deps.context, { keyId: r.key_id, debitId: r.debit_id });
        if (reply.outcome === "insufficient")
          publishCrossings(deps, r.key_id, [pausedExport(r.debit_id, reply.balance)]);
        return reply;
      },
      options,
    ),
    billingEndpoint(
      deps.subjects,
      "debitMonitorBatch",
      (r) =>
        debitExportPage(deps.context, {
          keyId: r.key_id,
          debitId: r.debit_id,
          operation: MONITOR_BATCH_OPERATION,
        }),
      options,
    ),
  ];
}
