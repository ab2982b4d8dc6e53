/**
 * The export worker: pulls job runs from the work queue (job-queue.ts) and pages through the
 * upstream exactly as a caller of the API would (sort=asc, the next page `after` the last page's
 * cursor, which never splits a second), one page at a time:
 *
 *   debit the page (its id: job, page, try) → ask the adapter → write the page to the object store
 *   → advance the checkpoint (compare-and-set) → settle the debit
 *
 * A job runs on one replica at a time, under its lease (job-store.ts `jobLeases`). A worker killed
 * anywhere in that loop leaves a checkpoint another replica resumes from once the lease lapsed: a
 * page written but not checkpointed is written again (under the new holder's name, which the
 * checkpoint then counts); a page debited but not fetched is found already debited under the same
 * id and not charged again. A page that fails is
 * refunded and retried under the next try's id. Rows already written at the seam (the last second
 * of the previous page) are dropped by id. Between pages the worker reads the job again, so pause
 * and cancel take effect after at most one page; the balance running out pauses the job, and its
 * queue message comes back after a delay to try again, so a top-up resumes it without a call.
 * A job that ends early (ceiling, cancel, failure) keeps its paid pages as its file (paid-rows.ts).
 */
import {
  EXPORTS_PRIORITY,
  type ExportSubjects,
  exportPageParams,
  type Result,
  type Subjects,
  type WorkDebitReply,
} from "@rda/contracts";
import {
  ACK,
  LEAVE,
  type Logger,
  type Loop,
  type MessageEnd,
  type NatsConnection,
  type Pause,
  renewWhileHeld,
  retryIn,
  type SpendingRefusal,
  startConsumerLoop,
} from "@rda/service-kit";
import { budgetAccountOfOwner } from "./job-owner.ts";
import { type JobMessage, jobMessageSchema } from "./job-queue.ts";
import { type Checkpoint, JobLeaseLost, type JobLeases, type JobRecord, type JobStore } from "./job-store.ts";
import type { ObjectStore } from "./object-store.ts";
import type { PageBilling } from "./page-billing.ts";
import type { ListingPage, PageFailure, PageSource } from "./page-source.ts";
import { keepPaidRows, needsPaidRowsFile } from "./paid-rows.ts";
import { assembleResult, partName, withWriter } from "./result-file.ts";
import { pauseRevokedJob } from "./revoked-keys.ts";

export interface WorkerSettings {
  /** Pages per second one job may fetch: the export share of the upstream budget. */
  readonly pagesPerSecond: number;
  readonly ackWaitMs: number;
  /** How soon a job paused by a zero balance tries again. */
  readonly balanceRetryMs: number;
  /** Wait after a failed page before the next try. */
  readonly pageRetryMs: number;
  /** Failed tries of one page before the job fails. */
  readonly maxPageFailures: number;
  readonly retentionMs: number;
  /** Jobs one replica runs at once. */
  readonly concurrency: number;
}

export interface WorkerDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly exportSubjects: ExportSubjects;
  readonly jobs: JobStore;
  /** The jobs' leases: a job runs on one replica at a time, and its writes check the lease. */
  readonly leases: JobLeases;
  readonly objects: ObjectStore;
  readonly source: PageSource;
  readonly billing: PageBilling;
  /** Tells the key's account that its export paused for credits (service-kit tellSpendingPaused). */
  readonly tellPaused: (keyId: string, refusal: SpendingRefusal, pause: Pause) => Promise<Result<void>>;
  readonly logger: Logger;
  readonly settings: WorkerSettings;
}

/**
 * What running a job needs: everything but the queue and the leases, with the job store that writes
 * under this run's lease and the lease holder's name, which names the parts it writes.
 */
export type JobRunDeps = Omit<WorkerDeps, "nats" | "subjects" | "exportSubjects" | "leases"> & {
  readonly writer: string;
};

/** How a run ends for its queue message: acked, or handed back to try again after a delay. */
type RunOutcome = MessageEnd;
const ACTIVE_STATES = new Set(["queued", "running", "paused"]);
/** States in which a fetched page joins the result. */
const KEEPS_PAGES = new Set(["running", "paused"]);

export function startWorkers(deps: WorkerDeps): Promise<Loop> {
  const { exportSubjects, settings } = deps;
  // Each of the `concurrency` handlers pulls a job only when it is free; the loop renews the
  // message's ack wait while the job runs, so JetStream hands it to another replica only when this
  // one stopped (job-queue.ts). Who runs the job is the job's lease.
  return startConsumerLoop({
    name: "export job",
    nats: deps.nats,
    stream: exportSubjects.jobStream,
    consumer: exportSubjects.jobConsumer,
    schema: jobMessageSchema,
    handle: (job, _message, isStopped) => runUnderLease(deps, job, isStopped),
    retryMs: settings.pageRetryMs,
    concurrency: settings.concurrency,
    logger: deps.logger,
  });
}

/**
 * Runs the job while holding its lease (renewed well within its time), so one replica at a time
 * runs it, and a replica that stalled past the lease finds every write refused once it wakes. A job
 * whose lease another holds is asked again later: a live holder keeps it, and one that stalled or
 * died loses it within the lease's time. The queue message is acked or handed back only while the
 * lease is still this replica's; a run that lost it leaves the message to the replica that has the
 * job now, since ending the delivery would end that replica's too.
 */
async function runUnderLease(
  deps: WorkerDeps,
  job: JobMessage,
  isStopped: () => boolean,
): Promise<MessageEnd> {
  const { leases, logger } = deps;
  const held = await leases.take(job.id);
  if (held === undefined) return retryIn(Math.ceil(leases.ttlMs / 3));
  let lost = false;
  const stopRenewing = renewWhileHeld(
    leases.ttlMs,
    async () => {
      if (!(await held.renew())) lost = true;
    },
    (error) => logger.warn({ export_id: job.id, err: String(error) }, "export job: lease not renewed"),
  );
  try {
    const runDeps = { ...deps, jobs: held.jobs, writer: held.writer };
    const end = await runJob(runDeps, job, () => isStopped() || lost);
    if (!lost && (await held.renew())) return end;
  } catch (error) {
    if (!(error instanceof JobLeaseLost)) throw error;
  } finally {
    stopRenewing();
    await held.release();
  }
  logger.warn({ export_id: job.id, run: job.run }, "export job: lease lost to another replica; left to it");
  return LEAVE;
}

export async function runJob(
  deps: JobRunDeps,
  job: JobMessage,
  stopping: () => boolean,
): Promise<RunOutcome> {
  const { jobs, settings, logger } = deps;
  await settleLeftPage(deps, job.id);
  const started = await jobs.update(job.id, (record) => {
    if (record.run !== job.run || !ACTIVE_STATES.has(record.state)) return undefined;
    if (record.state === "paused" && (record.pausedBy === "caller" || record.pausedBy === "revoked"))
      return undefined;
    return record.state === "running"
      ? undefined
      : { ...record, state: "running", pausedBy: null, reason: null };
  });
  if (started?.run === job.run && needsPaidRowsFile(started)) {
    await keepPaidRows(deps, started);
    return ACK;
  }
  if (started === undefined || started.run !== job.run || started.state !== "running") return ACK;
  logger.info({ export_id: job.id, pages_done: started.checkpoint.pages }, "export running");
  for (;;) {
    if (stopping()) return retryIn(0);
    const record = await jobs.get(job.id);
    if (record === undefined || record.run !== job.run) return ACK;
    if (record.state === "cancelled") {
      await refundInflight(deps, record, "cancelled");
      await keepPaidRows(deps, record);
      return ACK;
    }
    if (record.state !== "running") return ACK;
    const cp = record.checkpoint;
    if (!cp.hasMore) return finish(deps, record);
    if (cp.credits >= record.quote.ceiling_credits) {
      const why = `stopped at the credit ceiling of ${record.quote.ceiling_credits} after ${cp.pages} pages (the estimate was ${record.quote.estimated_pages}); nothing past it was charged. The file holds the paid rows; resume with a higher max_credits to go on`;
      return fail(deps, record, why, true);
    }
    const step = await fetchNextPage(deps, record, cp);
    if (step !== undefined) return step;
    const pause = 1_000 / settings.pagesPerSecond;
    if (pause > 0) await sleep(pause);
  }
}

/** One page: debit, fetch, write, checkpoint, settle. Undefined to go on to the next page. */
async function fetchNextPage(
  deps: JobRunDeps,
  record: JobRecord,
  cp: Checkpoint,
): Promise<RunOutcome | undefined> {
  const page = cp.pages + 1;
  const debitId = `${record.id}.p${page}.a${cp.attempt}`;
  const debited = await debitPage(deps, record, cp, debitId);
  if (debited !== DEBITED) return debited;
  const answer = await deps.source(
    record.query.kind,
    exportPageParams(record.query, cp.cursor),
    debitId,
    EXPORTS_PRIORITY,
    budgetAccountOfOwner(record.keyId, record.owner),
  );
  if (!answer.ok) return pageFailed(deps, record, cp, debitId, answer.error);
  return keepPage(deps, record, cp, debitId, answer.value);
}

/** The checkpoint still stands at this page of a running job: no other worker moved it. */
const atPage = (cp: Checkpoint) => (r: JobRecord) => r.state === "running" && r.checkpoint.pages === cp.pages;

const DEBITED = Symbol("debited");

/**
 * Marks the page's try as in flight, then debits it: DEBITED when the page is paid for, else what
 * the run does instead (wait for credits, stop for a revoked or unknown key, or ask again).
 */
async function debitPage(
  deps: JobRunDeps,
  record: JobRecord,
  cp: Checkpoint,
  debitId: string,
): Promise<RunOutcome | undefined | typeof DEBITED> {
  const { jobs, billing, settings } = deps;
  const samePage = atPage(cp);
  if (cp.inflightDebit !== debitId) {
    const marked = await jobs.update(record.id, (r) =>
      samePage(r) ? { ...r, checkpoint: { ...r.checkpoint, inflightDebit: debitId } } : undefined,
    );
    if (marked === undefined || marked.checkpoint.inflightDebit !== debitId) return undefined;
  }
  const debit = await billing.debit(record.keyId, debitId);
  if (debit === undefined) return retryIn(settings.pageRetryMs);
  switch (debit.outcome) {
    case "insufficient":
    case "spend_cap_reached":
      await pauseForCredits(deps, record, cp.pages + 1, debit);
      return retryIn(settings.balanceRetryMs);
    case "revoked":
      // Paused for good, not for credits: no retry, and the job leaves its account's active exports.
      await pauseRevokedJob(deps, record.id);
      return ACK;
    case "unknown_key":
      return fail(deps, record, "the key that started this export no longer exists");
    case "already_ended":
      // This try was refunded (by a worker that died after): the page is asked again as a new try.
      await jobs.update(record.id, (r) =>
        samePage(r)
          ? { ...r, checkpoint: { ...r.checkpoint, attempt: r.checkpoint.attempt + 1, inflightDebit: null } }
          : undefined,
      );
      return undefined;
    case "debited":
    case "already_debited":
      return DEBITED;
  }
}

/** The upstream did not give the page: refunded, counted, and asked again or the job failed. */
async function pageFailed(
  deps: JobRunDeps,
  record: JobRecord,
  cp: Checkpoint,
  debitId: string,
  error: PageFailure,
): Promise<RunOutcome | undefined> {
  const { jobs, settings } = deps;
  const page = cp.pages + 1;
  const samePage = atPage(cp);
  await refundPage(deps, record.keyId, debitId, "upstream_unavailable");
  const failed = await jobs.update(record.id, (r) =>
    samePage(r)
      ? {
          ...r,
          checkpoint: {
            ...r.checkpoint,
            attempt: r.checkpoint.attempt + 1,
            inflightDebit: null,
            failures: r.checkpoint.failures + 1,
          },
        }
      : undefined,
  );
  deps.logger.warn({ export_id: record.id, page, reason: error.reason }, "export page failed; refunded");
  const failures = failed?.checkpoint.failures ?? cp.failures + 1;
  if (!error.retryable || failures >= settings.maxPageFailures) {
    return fail(deps, failed ?? record, `page ${page} failed ${failures} time(s): ${error.reason}`);
  }
  await sleep(settings.pageRetryMs);
  return undefined;
}

/**
 * A paid page's rows (less those of the seam second the previous page already held) written to the
 * object store, the checkpoint advanced past them, and the page settled; refunded instead when the
 * job was cancelled or failed meanwhile.
 */
async function keepPage(
  deps: JobRunDeps,
  record: JobRecord,
  cp: Checkpoint,
  debitId: string,
  fetched: ListingPage,
): Promise<RunOutcome | undefined> {
  const page = cp.pages + 1;
  const seam = new Set(cp.seamIds);
  const rows = fetched.rows.filter((row) => !seam.has(String(row.id)));
  const part = partName(record.id, page, deps.writer);
  await deps.objects.put(part, rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
  const cursor = fetched.cursor ?? cp.cursor;
  const hasMore = fetched.hasMore && cursor > cp.cursor;
  const times = rows.map((row) => row.created_utc as number);
  const lastSecond = times.length > 0 ? Math.max(...times) : null;
  const next: Checkpoint = {
    pages: page,
    rows: cp.rows + rows.length,
    cursor,
    hasMore,
    seamIds: rows.filter((row) => row.created_utc === lastSecond).map((row) => String(row.id)),
    attempt: 0,
    inflightDebit: null,
    unsettledDebit: debitId,
    writers: withWriter(cp.writers, page, deps.writer),
    credits: cp.credits + 1,
    failures: 0,
    firstCreated: cp.firstCreated ?? (times.length > 0 ? Math.min(...times) : null),
    lastCreated: lastSecond ?? cp.lastCreated,
  };
  // A page fetched before a pause is kept and paid for, so a paused job's progress is what the
  // ledger took.
  const advanced = await deps.jobs.update(record.id, (r) =>
    KEEPS_PAGES.has(r.state) && r.checkpoint.pages === cp.pages && r.checkpoint.inflightDebit === debitId
      ? { ...r, checkpoint: next }
      : undefined,
  );
  if (advanced?.checkpoint.pages !== page || !KEEPS_PAGES.has(advanced.state)) {
    // Cancelled or failed meanwhile: this page is not part of the result, so it is not paid for.
    if (advanced === undefined) return ACK;
    if (advanced.state === "cancelled" || advanced.state === "failed") {
      await refundPage(deps, record.keyId, debitId, advanced.state);
      return ACK;
    }
    // Another worker took the run over (this one was presumed dead): it settles the page itself,
    // and its delivery of the message is the one that ends it, so this one is left, not acked.
    return LEAVE;
  }
  await settlePage(deps, record, debitId);
  return undefined;
}

/**
 * The page is written and checkpointed: its debit becomes final. Billing not answering is the
 * settle path's to retry. A debit that ended otherwise first (voided at its deadline while its
 * worker stalled) leaves the page free: the job's credits say so, once, so that what it reports
 * spent is what the ledger took.
 */
async function settlePage(
  deps: Pick<JobRunDeps, "billing" | "jobs" | "logger">,
  record: JobRecord,
  debitId: string,
) {
  const settled = await deps.billing.settle(record.keyId, debitId);
  // `expired`: billing holds no record any more (it outlived its retention), so nothing is known.
  if (!settled.ok || ["settled", "already_settled", "expired"].includes(settled.value)) return;
  const corrected = await deps.jobs.update(record.id, (r) =>
    r.checkpoint.unsettledDebit === debitId
      ? { ...r, checkpoint: { ...r.checkpoint, unsettledDebit: null, credits: r.checkpoint.credits - 1 } }
      : undefined,
  );
  if (corrected !== undefined)
    deps.logger.warn(
      { export_id: record.id, debit_id: debitId, end: settled.value },
      "export page not charged",
    );
}

/**
 * A worker that died between keeping a page and settling it left the page's debit pending: the next
 * run settles it before anything else (settling is idempotent), whatever state the job is in now,
 * since the page is part of the job's rows.
 */
async function settleLeftPage(deps: Pick<JobRunDeps, "billing" | "jobs" | "logger">, jobId: string) {
  const record = await deps.jobs.get(jobId);
  const debitId = record?.checkpoint.unsettledDebit;
  if (record !== undefined && debitId) await settlePage(deps, record, debitId);
}

async function finish(deps: JobRunDeps, record: JobRecord): Promise<RunOutcome> {
  const { file, manifest } = await assembleResult(deps.objects, record.id, record.query, {
    pages: record.checkpoint.pages,
    writers: record.checkpoint.writers,
    complete: true,
    cursor: record.checkpoint.cursor,
  });
  const now = Date.now();
  const expires = now + deps.settings.retentionMs;
  const done = await deps.jobs.update(
    record.id,
    (r) =>
      r.state === "running" && r.run === record.run
        ? {
            ...r,
            state: "done",
            finishedAt: new Date(now).toISOString(),
            expiresAt: new Date(expires).toISOString(),
            manifest,
            file,
          }
        : undefined,
    Math.ceil(deps.settings.retentionMs / 1000) + 86_400,
  );
  if (done?.state === "done") {
    await deps.jobs.deactivate(record);
    await deps.jobs.scheduleExpiry(record.id, expires);
    await deps.objects.removeAll(`${record.id}/parts`);
    deps.logger.info({ export_id: record.id, rows: manifest.rows, pages: manifest.pages }, "export done");
  }
  return ACK;
}

async function fail(
  deps: JobRunDeps,
  record: JobRecord,
  reason: string,
  atCeiling = false,
): Promise<RunOutcome> {
  const failed = await deps.jobs.update(record.id, (r) =>
    ACTIVE_STATES.has(r.state)
      ? { ...r, state: "failed", reason, stoppedAtCeiling: atCeiling, finishedAt: new Date().toISOString() }
      : undefined,
  );
  if (failed?.state === "failed") {
    await refundInflight(deps, failed, "export_failed");
    await deps.jobs.deactivate(record);
    await keepPaidRows(deps, failed);
    deps.logger.warn({ export_id: record.id, reason }, "export failed");
  }
  return ACK;
}

/** A page debited and never fetched (its worker died, then the job ended) is given back. */
export async function refundInflight(
  deps: Pick<JobRunDeps, "billing" | "logger">,
  record: JobRecord,
  reason: string,
) {
  const debitId = record.checkpoint.inflightDebit;
  if (debitId !== null) await refundPage(deps, record.keyId, debitId, reason);
}

/**
 * Gives one page's debit back through the one settle-and-refund path: now, else durably queued,
 * else voided at its deadline; applied exactly once either way. A page found settled was paid for
 * and written: that is a bug worth an error, never a second refund.
 */
async function refundPage(
  deps: Pick<JobRunDeps, "billing" | "logger">,
  keyId: string,
  debitId: string,
  reason: string,
) {
  const refunded = await deps.billing.refund(keyId, debitId, reason);
  if (!refunded.ok)
    deps.logger.warn({ debit_id: debitId, reason }, "page refund queued; billing was not reached");
  else if (refunded.value === "already_settled")
    deps.logger.error({ debit_id: debitId, reason }, "page refund refused: the page was settled");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A running job waits for credits (or a raised cap): the worker asks billing again later, and the
 * key's account is told, once per job and page (the pause's name), however often it is asked.
 */
async function pauseForCredits(
  deps: Pick<JobRunDeps, "jobs" | "tellPaused" | "logger">,
  record: JobRecord,
  page: number,
  refusal: Extract<WorkDebitReply, SpendingRefusal>,
): Promise<void> {
  const why =
    refusal.outcome === "insufficient"
      ? "the key's balance is 0; the job resumes by itself once credits are added"
      : "the key's monthly spend cap is reached; the job resumes by itself once the cap is raised or the month turns (UTC)";
  const pause = { what: `Your export ${record.id}`, crossing: `${record.id}.p${page}:${refusal.outcome}` };
  const told = await deps.tellPaused(record.keyId, refusal, pause);
  if (!told.ok) deps.logger.warn({ export_id: record.id, err: told.error }, "pause notice not published");
  await deps.jobs.update(record.id, (r) =>
    r.state === "running"
      ? { ...r, state: "paused", pausedBy: "balance", reason: `paused: ${why}` }
      : undefined,
  );
}
