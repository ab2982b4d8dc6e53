/** A job as its owner sees it (`ExportJob` in the contract): progress, ETA and, once it has one, the file. */
import type { ExportJob } from "@rda/contracts";
import type { JobRecord } from "./job-store.ts";

export function jobView(record: JobRecord, pagesPerSecond: number): ExportJob {
  const { checkpoint: cp, query, quote } = record;
  const span = Math.max(1, query.before - query.after);
  const covered = Math.min(1, Math.max(0, (cp.cursor - query.after) / span));
  const finished = record.state === "done";
  const percent = finished ? 100 : Math.min(99.9, Math.round(covered * 1000) / 10);
  const pagesLeft = Math.max(0, Math.round(quote.estimated_pages * (1 - covered)));
  const moving = record.state === "queued" || record.state === "running" || record.state === "quoted";
  return {
    id: record.id,
    state: record.state,
    query,
    quote,
    progress: {
      pages_done: cp.pages,
      rows_done: cp.rows,
      credits_spent: cp.credits,
      cursor: cp.cursor,
      percent,
      eta_seconds: finished ? 0 : moving ? Math.ceil(pagesLeft / pagesPerSecond) : null,
    },
    reason: record.reason,
    created_at: record.createdAt,
    finished_at: record.finishedAt,
    expires_at: record.expiresAt,
    // A job that ended early with paid pages has a file too, its manifest saying `complete: false`.
    result:
      record.manifest !== null && record.file !== null
        ? { file_url: `/v1/exports/${record.id}/file`, manifest: record.manifest }
        : null,
  };
}
