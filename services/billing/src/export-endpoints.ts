/**
 * Billing's subjects for work that spends on its own: an export job's per-page debit and a monitor's
 * per-batch webhook debit (both ledger/export-page-debits.ts). Kept apart from endpoints.ts so these
 * features add one entry there and nothing else.
 */
import type { RequestHandler } from "@rda/service-kit";
import type { EndpointDeps } from "./endpoints.ts";
import { billingEndpoint, type EndpointOptions } from "./json-endpoint.ts";
import { debitExportPage, MONITOR_BATCH_OPERATION } from "./ledger/export-page-debits.ts";

/** `options`: the hot path's (the page debit is one short ledger script, like an admission). */
export function exportEndpoints(
  deps: EndpointDeps,
  options: EndpointOptions,
): { subject: string; handler: RequestHandler }[] {
  return [
    billingEndpoint(
      deps.subjects,
      "debitExportPage",
      (r) => debitExportPage(deps.context, { keyId: r.key_id, debitId: r.debit_id }),
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
