/**
 * An export job runs under its lease (service-kit's lease on the job, every record write checking
 * it), over real Redis and, for the queue, real JetStream: a worker that stalled past its lease
 * (it stopped renewing, as a paused or starved process does) writes nothing back once it wakes, and
 * its late page is in no file; the replica that took the job over finishes it, charged once a
 * page. A job whose lease another holds waits for it, and runs once it is free.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSubjects, err, ok } from "@rda/contracts";
import {
  ACK,
  jetstream,
  jetstreamManager,
  type NatsConnection,
  type Redis,
  renewWhileHeld,
} from "@rda/service-kit";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { enqueueJob, ensureJobQueue } from "../src/job-queue.ts";
import {
  exportKeys,
  JobLeaseLost,
  type JobLeases,
  type JobStore,
  jobLeases,
  redisJobStore,
} from "../src/job-store.ts";
import { filesystemStore, type ObjectStore } from "../src/object-store.ts";
import type { PageResult, PageSource } from "../src/page-source.ts";
import { type JobRunDeps, runJob, startWorkers } from "../src/worker.ts";
import { FakeLedger, fakeSource, runningJob } from "./support/fake-work.ts";

const PAGES = 3;
const START = 10;
const LEASE_MS = 600;
const SETTINGS = {
  pagesPerSecond: 1_000_000,
  ackWaitMs: LEASE_MS,
  balanceRetryMs: 100,
  pageRetryMs: 0,
  maxPageFailures: 3,
  retentionMs: 60_000,
  concurrency: 1,
};
const ID = "exp_lease";
const JOB = { id: ID, run: 1 };

const namespace = testNamespace("exlease");
const keys = exportKeys(namespace);
let redis: Redis;
let nats: NatsConnection;
let dir: string;
let objects: ObjectStore;
let store: JobStore;
let leases: JobLeases;
let ledger: FakeLedger;
/** The lease renewals the test started, stopped after each test. */
const stalls: (() => void)[] = [];

beforeAll(async () => {
  [redis, nats] = await Promise.all([connectTestRedis(), connectTestNats()]);
});
afterAll(async () => {
  await deleteNamespaceKeys(redis, namespace);
  await redis.quit();
  await nats.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rda-worker-lease-"));
  objects = filesystemStore(dir);
  store = redisJobStore(redis, keys);
  leases = jobLeases(redis, keys, LEASE_MS);
  ledger = new FakeLedger(START);
  await store.create(runningJob(ID, PAGES), 600);
});
afterEach(async () => {
  for (const stall of stalls.splice(0)) stall();
  await deleteNamespaceKeys(redis, namespace);
  await rm(dir, { recursive: true, force: true });
});

/** The fake upstream, except that page `page` waits until `open()` and then answers `late`. */
function heldAt(page: number, late?: () => PageResult) {
  const pages = fakeSource(PAGES);
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const held = { waiting: false, open };
  const source: PageSource = async (kind, params, ...rest) => {
    if (params.after !== page - 1) return pages(kind, params, ...rest);
    held.waiting = true;
    await opened;
    return late?.() ?? pages(kind, params, ...rest);
  };
  return { source, held };
}

/** What every worker here shares: the object store, the fake ledger, the settings. */
function shared() {
  return {
    objects,
    billing: ledger,
    tellPaused: async () => ok(undefined),
    logger: silentLogger(),
    settings: SETTINGS,
  };
}

function runDeps(source: PageSource, held: { jobs: JobStore; writer: string }): JobRunDeps {
  return { ...shared(), jobs: held.jobs, writer: held.writer, source };
}

/** Takes the job's lease and keeps it, as the worker does, until the returned `stall()`. */
async function takeAndRenew() {
  const held = await leases.take(ID);
  if (held === undefined) throw new Error("the job's lease was not free");
  const stall = renewWhileHeld(
    LEASE_MS,
    () => held.renew(),
    () => {},
  );
  stalls.push(stall);
  return { held, stall };
}

/**
 * Worker A takes the job and stalls at page 2 (it stops renewing its lease); once the lease ran
 * out, worker B takes the job over and runs until page 3, where it waits. Returns both runs.
 */
async function stallThenTakeOver(lateAnswer: () => PageResult) {
  const { held: a, stall } = await takeAndRenew();
  const atA = heldAt(2, lateAnswer);
  const runA = runJob(runDeps(atA.source, a), JOB, () => false);
  await waitFor(() => atA.held.waiting, "worker A at page 2");
  stall();
  await waitFor(async () => (await redis.exists(keys.jobLease(ID))) === 0, "worker A's lease to run out");
  const { held: b } = await takeAndRenew();
  const atB = heldAt(3);
  const runB = runJob(runDeps(atB.source, b), JOB, () => false);
  await waitFor(() => atB.held.waiting, "worker B at page 3");
  return { a, b, atA, atB, runA, runB };
}

async function fileRowIds(): Promise<string[]> {
  const record = await store.get(ID);
  if (record?.file == null) throw new Error("the job has no file");
  const text = await readFile(join(dir, record.file.path), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => String((JSON.parse(line) as { id: string }).id));
}

const ALL_ROWS = ["r0_0", "r0_1", "r1_0", "r1_1", "r2_0", "r2_1"];

describe("an export job's lease", () => {
  it("refuses every write of a worker that stalled past it, and its late page is in no file", async () => {
    const lateRows = () =>
      ok({ rows: [{ id: "late_1", created_utc: 15 }], cursor: 2, hasMore: true }) as PageResult;
    const { a, b, atA, atB, runA, runB } = await stallThenTakeOver(lateRows);
    // A wakes with the upstream's later answer to page 2 and goes on as if it still held the job.
    atA.held.open();
    await expect(runA).rejects.toBeInstanceOf(JobLeaseLost);
    atB.held.open();
    expect(await runB).toEqual(ACK);
    const record = await store.get(ID);
    expect(record).toMatchObject({ state: "done", checkpoint: { pages: PAGES, rows: 6 } });
    expect(record?.checkpoint.writers).toEqual([
      { from: 1, writer: a.writer },
      { from: 2, writer: b.writer },
    ]);
    expect(await fileRowIds()).toEqual(ALL_ROWS);
    expect(ledger.balance).toBe(START - PAGES);
    expect(ledger.count("settled")).toBe(PAGES);
    expect(ledger.count("pending")).toBe(0);
  });

  it("keeps a stalled worker's failure from failing the job another replica took over", async () => {
    const failure = () => err({ reason: "the archive refused the window", retryable: false }) as PageResult;
    const { atA, atB, runA, runB } = await stallThenTakeOver(failure);
    atA.held.open();
    await expect(runA).rejects.toBeInstanceOf(JobLeaseLost);
    expect((await store.get(ID))?.state).toBe("running");
    atB.held.open();
    expect(await runB).toEqual(ACK);
    expect((await store.get(ID))?.state).toBe("done");
    expect(await fileRowIds()).toEqual(ALL_ROWS);
    expect(ledger.balance).toBe(START - PAGES);
    expect(ledger.count("pending")).toBe(0);
  });

  it("holds a queued job back while another holder has its lease, and runs it once the lease is free", async () => {
    const subjects = buildSubjects(namespace);
    const jsm = await jetstreamManager(nats);
    await ensureJobQueue(jsm, subjects.exports, SETTINGS.ackWaitMs, 1);
    const source = fakeSource(PAGES);
    const workers = await startWorkers({
      nats,
      subjects,
      exportSubjects: subjects.exports,
      jobs: store,
      leases,
      source,
      ...shared(),
    });
    try {
      // A replica that stalled still holds the job: the queue's delivery alone does not run it.
      await redis.set(keys.jobLease(ID), "a stalled replica", "PX", 3 * LEASE_MS);
      await enqueueJob(jetstream(nats), subjects.exports, JOB);
      const deliveries = async () =>
        (await jsm.consumers.info(subjects.exports.jobStream, subjects.exports.jobConsumer)).delivered
          .consumer_seq;
      await waitFor(
        async () => (await deliveries()) >= 2,
        "the job's message handed back and delivered again",
      );
      expect(await redis.pttl(keys.jobLease(ID))).toBeGreaterThan(0);
      expect(source.asked).toBe(0);
      await waitFor(
        async () => (await store.get(ID))?.state === "done",
        "the job to run once the lease lapsed",
      );
      expect(await fileRowIds()).toEqual(ALL_ROWS);
      expect(ledger.balance).toBe(START - PAGES);
    } finally {
      await workers.stop();
      await jsm.streams.delete(subjects.exports.jobStream);
    }
  });
});
