/**
 * The calls of EXPORTS_RPC the gateway sends: create (with its quote), start, show, pause, resume,
 * cancel, the file of a finished job, and a key's list, each answering its own reply. Every call names the key
 * that asks; a job of another key is answered exactly as a job that does not exist (404), so ids
 * reveal nothing. A quote costs the caller nothing: its probe pages are asked of the upstream but
 * never charged.
 *
 * A create, start or resume sent under `Idempotency-Key` carries a request token (contracts'
 * `requestTokenSchema`), and is done once per token: a create's token is noted with the job it made
 * (job-store.ts `create`), a start's or a resume's in the job record by the write that queues the
 * job. The same command arriving again (its first answer was lost or late) answers that job as it
 * is now; a create with `confirm` whose start was refused starts the job it quoted then.
 */
import { randomBytes } from "node:crypto";
import {
  EXPORT_LIMITS,
  EXPORT_LIST_LIMIT,
  type ExportFileReply,
  type ExportJobReply,
  type ExportList,
  type ExportRefusal,
  type ExportRequest,
  type ExportSubjects,
  type ExportsRpcDecoded,
  type ExportsRpcName,
  type ExportsRpcReply,
  parseExportRequest,
  REQUEST_TOKEN_SECONDS,
  exportRefusal as refuse,
  type Subjects,
} from "@rda/contracts";
import {
  type ArchiveCount,
  type CountFailure,
  type JetStreamClient,
  type Logger,
  markedBy,
  type NatsConnection,
  withMark,
} from "@rda/service-kit";
import type { DownloadLinks } from "./download-links.ts";
import { budgetAccountOfOwner, type JobOwners } from "./job-owner.ts";
import { enqueueJob } from "./job-queue.ts";
import type { JobRecord, JobStore } from "./job-store.ts";
import { jobView } from "./job-view.ts";
import type { ObjectStore } from "./object-store.ts";
import type { PageBilling } from "./page-billing.ts";
import type { PageFailure, PageSource } from "./page-source.ts";
import { makeQuote } from "./quote.ts";
import { isPausedByRevocation, REVOKED_KEY_REASON } from "./revoked-keys.ts";
import { refundInflight } from "./worker.ts";

export interface CommandDeps {
  readonly nats: NatsConnection;
  readonly js: JetStreamClient;
  readonly subjects: Subjects;
  readonly exportSubjects: ExportSubjects;
  readonly jobs: JobStore;
  readonly objects: ObjectStore;
  readonly source: PageSource;
  /** The archive's count of a window's items, for the quote. */
  readonly count?: ArchiveCount;
  readonly billing: PageBilling;
  readonly links: DownloadLinks;
  readonly owners: JobOwners;
  readonly logger: Logger;
  readonly pagesPerSecond: number;
  /** How long a quote that was never started is kept. */
  readonly quoteTtlSeconds: number;
  /**
   * Quotes one account may ask a minute over all its keys: a quote is free to the caller but reads
   * the archive (two upstream calls, from the budget every customer shares), so it is limited on its
   * own.
   */
  readonly quotesPerMinute: number;
}

const NOT_FOUND = refuse("resource_not_found", "no such export");

/** The key's exports, newest first: the developer portal's list. */
export async function listJobs(deps: CommandDeps, keyId: string): Promise<ExportList> {
  const records = await deps.jobs.listForKey(keyId, EXPORT_LIST_LIMIT);
  return {
    jobs: records
      .filter((record) => record.keyId === keyId)
      .map((record) => jobView(record, deps.pagesPerSecond)),
  };
}

export type ExportHandlers = {
  readonly [N in ExportsRpcName]: (request: ExportsRpcDecoded<N>) => Promise<ExportsRpcReply<N>>;
};

/** What answers each call of EXPORTS_RPC. */
export function exportHandlers(deps: CommandDeps): ExportHandlers {
  /** The asking key's own job, or the not-found a job of another key gets too. */
  const own =
    <R extends { key_id: string; id: string }, Answer>(
      run: (record: JobRecord, request: R) => Promise<Answer>,
    ) =>
    async (request: R): Promise<Answer | ExportRefusal> => {
      const record = await deps.jobs.get(request.id);
      return record === undefined || record.keyId !== request.key_id ? NOT_FOUND : run(record, request);
    };
  return {
    create: (request) => create(deps, request),
    show: own(async (record) => shown(deps, record)),
    start: own((record, request: ExportsRpcDecoded<"start">) =>
      start(deps, record, request.balance, request.request_token),
    ),
    pause: own((record) => pause(deps, record)),
    resume: own((record, request: ExportsRpcDecoded<"resume">) =>
      resume(deps, record, request.balance, request.max_credits, request.request_token),
    ),
    cancel: own((record) => cancel(deps, record)),
    file: own((record) => file(deps, record)),
    list: (request) => listJobs(deps, request.key_id),
  };
}

const shown = (deps: CommandDeps, record: JobRecord): ExportJobReply => ({
  outcome: "ok",
  job: jobView(record, deps.pagesPerSecond),
});

async function create(deps: CommandDeps, asked: ExportsRpcDecoded<"create">): Promise<ExportJobReply> {
  const { key_id: keyId, balance, request_token: token } = asked;
  const request = parseExportRequest(asked.body);
  if (!request.ok) return refuse("invalid_parameter", `invalid parameter: ${request.error}`);
  // Asked again under its token: the job the first made, quoted or read once only.
  const made = token === undefined ? undefined : await deps.jobs.requestedBy(keyId, token);
  if (made !== undefined) return createdBefore(deps, made, request.value, balance, token);
  // Quotes are limited per account, not per key: more keys must not mean more free archive reads.
  const owner = await deps.owners(keyId);
  if (owner === undefined)
    return refuse(
      "service_unavailable",
      "the key's account could not be read; nothing was charged, try again",
    );
  if ((await deps.jobs.countQuote(owner, Date.now())) > deps.quotesPerMinute)
    return refuse(
      "quote_rate_limited",
      `at most ${deps.quotesPerMinute} export quotes a minute per account (each reads the archive); try again within a minute`,
      secondsToNextMinute(),
    );
  const id = `exp_${randomBytes(12).toString("hex")}`;
  const budget = quoteBudget(deps, budgetAccountOfOwner(keyId, owner));
  const quoted = await makeQuote(
    request.value.query,
    budget.source,
    id,
    deps,
    request.value.maxCredits,
    budget.count,
  );
  if (!quoted.ok) {
    deps.logger.warn({ reason: quoted.error }, "export quote failed");
    const refusal = budget.refusal();
    // Our own budget is told apart from the upstream's limit: each is named for what it is.
    if (refusal?.by === "ours")
      return refuse(
        "global_rate_limited",
        "our shared budget of requests to the data source is spent for now; nothing was charged, try again after Retry-After",
        refusal.retryAfterSeconds,
      );
    if (refusal?.by === "upstream")
      return refuse(
        "upstream_rate_limited",
        "the data source is rate limiting us; nothing was charged, try again after Retry-After",
        refusal.retryAfterSeconds,
      );
    return refuse(
      "service_unavailable",
      "the data source could not be sampled for a quote; nothing was charged, try again",
    );
  }
  const { query } = request.value;
  const record: JobRecord = {
    version: 1,
    id,
    keyId,
    state: "quoted",
    pausedBy: null,
    reason: null,
    query,
    quote: quoted.value,
    run: 0,
    checkpoint: {
      pages: 0,
      rows: 0,
      cursor: query.after,
      hasMore: true,
      seamIds: [],
      attempt: 0,
      inflightDebit: null,
      unsettledDebit: null,
      writers: [],
      credits: 0,
      failures: 0,
      firstCreated: null,
      lastCreated: null,
    },
    createdAt: new Date().toISOString(),
    finishedAt: null,
    expiresAt: null,
    manifest: null,
    file: null,
  };
  const requested = token === undefined ? undefined : { token, ttlSeconds: REQUEST_TOKEN_SECONDS };
  // The same create under the same token, quoting alongside, may have made its job first.
  const madeMeanwhile = await deps.jobs.create(record, deps.quoteTtlSeconds, requested);
  if (madeMeanwhile !== undefined) return createdBefore(deps, madeMeanwhile, request.value, balance, token);
  await deps.jobs.remember(record, Date.parse(record.createdAt));
  if (!request.value.confirm) return shown(deps, record);
  return start(deps, record, balance, token);
}

/**
 * A create whose request token made a job before: that job as it is now, and started when the
 * create asked for it and the first start was refused (the balance was short, the account at its
 * limit), as that create would start it now.
 */
async function createdBefore(
  deps: CommandDeps,
  id: string,
  request: ExportRequest,
  balance: number,
  token: string | undefined,
): Promise<ExportJobReply> {
  const record = await deps.jobs.get(id);
  // Only as the token's window closes, when its job's record (kept as long) goes the same moment.
  if (record === undefined)
    return refuse("service_unavailable", "the export is being read; nothing was charged, try again");
  if (request.confirm && record.state === "quoted") return start(deps, record, balance, token);
  return shown(deps, record);
}

async function start(
  deps: CommandDeps,
  record: JobRecord,
  balance: number,
  token?: string,
): Promise<ExportJobReply> {
  if (markedBy(record.requestTokens, token, Date.now())) return shown(deps, record);
  if (record.state !== "quoted")
    return refuse("state_conflict", `this export was already started (it is ${record.state})`);
  // The most the job can cost is its ceiling, not the estimate: a job started on the estimate
  // alone could pause at a zero balance part-way, with credits spent on a file it cannot finish.
  const ceiling = record.quote.ceiling_credits;
  if (ceiling > balance) {
    return refuse(
      "insufficient_credits",
      `insufficient credits: this export may cost up to ${ceiling} credits (its ceiling; estimated ${record.quote.estimated_pages}) and the balance is ${balance}: ${ceiling - balance} more credits are needed, or set a lower max_credits; nothing was charged`,
    );
  }
  return activateAndQueue(deps, record, ["quoted"], token);
}

/** Counts the job among its owner's active exports (refused past the limit), then queues it. */
async function activateAndQueue(
  deps: CommandDeps,
  record: JobRecord,
  from: readonly string[],
  token: string | undefined,
): Promise<ExportJobReply> {
  const owner = await deps.owners(record.keyId);
  if (owner === undefined) {
    return refuse(
      "service_unavailable",
      "billing did not answer in time; the export was not started and nothing was charged, try again",
    );
  }
  const limit = EXPORT_LIMITS.maxActivePerAccount;
  if (!(await deps.jobs.activate(owner, record.id, limit))) {
    return refuse(
      "export_limit_reached",
      `too many exports: an account may have at most ${limit} queued, running or paused at once, over all its keys`,
    );
  }
  return requeue(deps, record, from, token, owner);
}

/**
 * Moves the job to `queued` under a new run, noting the command's request token in the same write,
 * and puts that run on the work queue.
 */
async function requeue(
  deps: CommandDeps,
  record: JobRecord,
  from: readonly string[],
  token: string | undefined,
  owner?: string,
): Promise<ExportJobReply> {
  const now = Date.now();
  let queuedNow = false;
  // A job that is not expired keeps its record for the retention after it ends; until then, a day.
  const queued = await deps.jobs.update(
    record.id,
    (r) => {
      queuedNow = from.includes(r.state) && !markedBy(r.requestTokens, token, now);
      if (!queuedNow) return undefined;
      return {
        ...r,
        state: "queued",
        pausedBy: null,
        reason: null,
        run: r.run + 1,
        owner: owner ?? r.owner,
        requestTokens: withMark(r.requestTokens, token, now),
      };
    },
    86_400 * 30,
  );
  if (queued === undefined) return NOT_FOUND;
  if (!queuedNow) {
    // The same command under the same token, sent alongside, queued it first.
    if (markedBy(queued.requestTokens, token, now)) return shown(deps, queued);
    return refuse("state_conflict", `this export is ${queued.state}`);
  }
  await enqueueJob(deps.js, deps.exportSubjects, { id: queued.id, run: queued.run });
  return shown(deps, queued);
}

async function pause(deps: CommandDeps, record: JobRecord): Promise<ExportJobReply> {
  if (record.state === "paused" && record.pausedBy !== "balance") return shown(deps, record);
  const paused = await deps.jobs.update(record.id, (r) =>
    r.state === "queued" || r.state === "running" || r.state === "paused"
      ? { ...r, state: "paused", pausedBy: "caller", reason: "paused by the caller" }
      : undefined,
  );
  if (paused?.state !== "paused")
    return refuse(
      "state_conflict",
      `only a queued or running export can be paused; this one is ${paused?.state ?? record.state}`,
    );
  return shown(deps, paused);
}

async function resume(
  deps: CommandDeps,
  record: JobRecord,
  balance: number,
  maxCredits: number | undefined,
  token: string | undefined,
): Promise<ExportJobReply> {
  if (markedBy(record.requestTokens, token, Date.now())) return shown(deps, record);
  if (record.state === "failed" && record.stoppedAtCeiling === true) {
    return resumePastCeiling(deps, record, balance, maxCredits, token);
  }
  if (record.state === "queued" || record.state === "running") return shown(deps, record);
  if (isPausedByRevocation(record)) return refuse("state_conflict", `this export is ${REVOKED_KEY_REASON}`);
  if (record.state !== "paused")
    return refuse(
      "state_conflict",
      `only a paused export, or one stopped at its credit ceiling, can be resumed; this one is ${record.state}`,
    );
  if (maxCredits !== undefined && maxCredits <= record.checkpoint.credits) {
    return refuse(
      "state_conflict",
      `max_credits must be above the ${record.checkpoint.credits} credits this export has spent`,
    );
  }
  const raised = maxCredits === undefined ? record : await raiseCeiling(deps, record, maxCredits, ["paused"]);
  if (raised === undefined) return NOT_FOUND;
  return requeue(deps, raised, ["paused"], token);
}

/**
 * A job stopped at its ceiling goes on from its checkpoint under a higher one. Like a start, the
 * balance must cover the most it can still spend (the new ceiling less what it has spent).
 */
async function resumePastCeiling(
  deps: CommandDeps,
  record: JobRecord,
  balance: number,
  maxCredits: number | undefined,
  token: string | undefined,
): Promise<ExportJobReply> {
  const spent = record.checkpoint.credits;
  if (maxCredits === undefined || maxCredits <= spent) {
    return refuse(
      "state_conflict",
      `this export stopped at its credit ceiling of ${record.quote.ceiling_credits}: resume it with a max_credits above the ${spent} credits it has spent`,
    );
  }
  const more = maxCredits - spent;
  if (more > balance) {
    return refuse(
      "insufficient_credits",
      `insufficient credits: going on to a ceiling of ${maxCredits} may cost up to ${more} more credits and the balance is ${balance}: ${more - balance} more credits are needed, or set a lower max_credits; nothing was charged`,
    );
  }
  const reopened = await deps.jobs.update(record.id, (r) =>
    r.state === "failed" && r.stoppedAtCeiling === true
      ? {
          ...r,
          stoppedAtCeiling: false,
          quote: { ...r.quote, ceiling_credits: maxCredits },
          file: null,
          manifest: null,
          finishedAt: null,
          expiresAt: null,
        }
      : undefined,
  );
  if (reopened === undefined) return NOT_FOUND;
  if (reopened.quote.ceiling_credits !== maxCredits || reopened.state !== "failed") {
    return refuse("state_conflict", `this export is ${reopened.state}`);
  }
  // Its pages are kept from here on: the retention sweep no longer removes them.
  await deps.jobs.forgetExpiry(record.id);
  return activateAndQueue(deps, reopened, ["failed"], token);
}

async function raiseCeiling(
  deps: CommandDeps,
  record: JobRecord,
  maxCredits: number,
  from: readonly string[],
): Promise<JobRecord | undefined> {
  return deps.jobs.update(record.id, (r) =>
    from.includes(r.state) ? { ...r, quote: { ...r.quote, ceiling_credits: maxCredits } } : undefined,
  );
}

async function cancel(deps: CommandDeps, record: JobRecord): Promise<ExportJobReply> {
  const cancellable = new Set(["quoted", "queued", "running", "paused"]);
  if (record.state === "cancelled") return shown(deps, record);
  const cancelled = await deps.jobs.update(record.id, (r) =>
    cancellable.has(r.state)
      ? { ...r, state: "cancelled", reason: "cancelled by the caller", finishedAt: new Date().toISOString() }
      : undefined,
  );
  if (cancelled?.state !== "cancelled") {
    return refuse("state_conflict", `a ${cancelled?.state ?? record.state} export cannot be cancelled`);
  }
  await deps.jobs.deactivate(cancelled);
  // A page debited by a worker that died is given back here when no worker will run the job again;
  // a running worker sees the cancel after its page and refunds nothing twice (the marker decides).
  await refundInflight(deps, cancelled, "cancelled");
  // The pages paid so far become the file, written by a worker (paid-rows.ts): a new run of the
  // job is queued for it, and a worker still on the old run stops at its next page.
  if (cancelled.checkpoint.pages > 0) {
    const rerun = await deps.jobs.update(cancelled.id, (r) =>
      r.state === "cancelled" && r.file === null ? { ...r, run: r.run + 1 } : undefined,
    );
    if (rerun?.state === "cancelled" && rerun.file === null) {
      await enqueueJob(deps.js, deps.exportSubjects, { id: rerun.id, run: rerun.run });
      return shown(deps, rerun);
    }
  }
  return shown(deps, cancelled);
}

async function file(deps: CommandDeps, record: JobRecord): Promise<ExportFileReply> {
  if (record.file === null) {
    const why =
      record.state === "failed" || record.state === "cancelled"
        ? record.checkpoint.pages === 0
          ? `the export is ${record.state} and no page was paid for, so it has no file`
          : `the export is ${record.state}; the file of its paid rows is being written`
        : `the export is ${record.state}`;
    return refuse("state_conflict", `the export's file is not ready: ${why}`);
  }
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now()) {
    return refuse("resource_not_found", "this export's file has expired");
  }
  return {
    outcome: "ok",
    job: jobView(record, deps.pagesPerSecond),
    file: { ...record.file, download_url: deps.links.sign(record.id) },
  };
}

const secondsToNextMinute = () => 60 - (Math.floor(Date.now() / 1000) % 60);

/**
 * A quote's archive reads, as one account's interactive turns in the upstream budget
 * (docs/upstream.md#fair-shares), noting when a budget refused one, and whose it was (ours, or the
 * upstream's own limit), so the quote can answer that 429 with an honest Retry-After. Our budget is
 * named when both refused: it is the one a retry waits on first.
 */
function quoteBudget(deps: CommandDeps, account: string) {
  let refusal: { by: "ours" | "upstream"; retryAfterSeconds: number } | undefined;
  const note = (failure: PageFailure | CountFailure) => {
    if (failure.refusedBy === undefined) return;
    const by = refusal?.by === "ours" ? "ours" : failure.refusedBy;
    const retryAfterSeconds = Math.max(refusal?.retryAfterSeconds ?? 0, failure.retryAfterSeconds ?? 1);
    refusal = { by, retryAfterSeconds };
  };
  const source: PageSource = async (kind, params, requestId, priority) => {
    const page = await deps.source(kind, params, requestId, priority, account);
    if (!page.ok) note(page.error);
    return page;
  };
  const countWindow = deps.count;
  const count: ArchiveCount | undefined =
    countWindow &&
    (async (window, requestId) => {
      const counted = await countWindow(window, requestId, account);
      if (!counted.ok) note(counted.error);
      return counted;
    });
  return { source, count, refusal: () => refusal };
}
