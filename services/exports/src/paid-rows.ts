/**
 * An export that ends before its window does (at its credit ceiling, cancelled, or failed) keeps
 * what was paid for (docs/api.md#exports): the pages fetched and charged so far become its file,
 * marked `complete: false` in the manifest with the window those pages cover, kept for the
 * retention like a finished file. Its pages stay beside the file until it expires, so a job stopped
 * at its ceiling can be resumed from its checkpoint with a higher one.
 */
import type { Logger } from "@rda/service-kit";
import type { JobRecord, JobStore } from "./job-store.ts";
import type { ObjectStore } from "./object-store.ts";
import { assembleResult } from "./result-file.ts";

export interface PaidRowsDeps {
  readonly jobs: JobStore;
  readonly objects: ObjectStore;
  readonly logger: Logger;
  readonly settings: { readonly retentionMs: number };
}

const ENDED_EARLY = new Set(["failed", "cancelled"]);

/** True when `record` ended early with paid pages and its file is not written yet. */
export function needsPaidRowsFile(record: JobRecord): boolean {
  return ENDED_EARLY.has(record.state) && record.checkpoint.pages > 0 && record.file === null;
}

/**
 * Writes the file of an ended job's paid pages and records it on the job; a job with no paid page
 * has no file, and its (unpaid) parts are removed. Safe to run twice: the record takes one file.
 */
export async function keepPaidRows(deps: PaidRowsDeps, ended: JobRecord): Promise<void> {
  if (ended.checkpoint.pages === 0) {
    await deps.objects.removeAll(`${ended.id}/parts`);
    return;
  }
  if (!needsPaidRowsFile(ended)) return;
  const { checkpoint } = ended;
  const { file, manifest } = await assembleResult(deps.objects, ended.id, ended.query, {
    pages: checkpoint.pages,
    writers: checkpoint.writers,
    complete: false,
    cursor: checkpoint.cursor,
  });
  const expires = Date.now() + deps.settings.retentionMs;
  const kept = await deps.jobs.update(
    ended.id,
    (r) =>
      r.state === ended.state && r.run === ended.run && r.file === null
        ? { ...r, file, manifest, expiresAt: new Date(expires).toISOString() }
        : undefined,
    Math.ceil(deps.settings.retentionMs / 1000) + 86_400,
  );
  if (kept?.file?.path !== file.path || kept.manifest?.sha256 !== manifest.sha256) return;
  await deps.jobs.scheduleExpiry(ended.id, expires);
  deps.logger.info(
    { export_id: ended.id, rows: manifest.rows, pages: manifest.pages, state: ended.state },
    "export ended early; its paid rows are kept as a partial file",
  );
}
