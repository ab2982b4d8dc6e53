/**
 * Billing's subject for export jobs: the per-page debit (ledger/export-page-debits.ts). Kept apart
 * from endpoints.ts so the export feature adds one entry there and nothing else.
 */
import { exportPageDebitRequestSchema } from "@rda/contracts";
import type { RequestHandler } from "@rda/service-kit";
import type { EndpointDeps } from "./endpoints.ts";
import { jsonEndpoint } from "./json-endpoint.ts";
import { debitExportPage } from "./ledger/export-page-debits.ts";

export function exportEndpoints(deps: EndpointDeps): { subject: string; handler: RequestHandler }[] {
  const options = {
    logger: deps.logger,
    onRefused: (subject: string) => deps.metrics.refusedRequests.inc({ subject }),
    timeoutMs: deps.storeTimeoutMs,
  };
  const debit = (r: { key_id: string; debit_id: string }) =>
    debitExportPage(deps.context, { keyId: r.key_id, debitId: r.debit_id });
  return [
    {
      subject: deps.subjects.billing.debitExportPage,
      handler: jsonEndpoint(exportPageDebitRequestSchema, debit, options),
    },
  ];
}
