/** Export jobs on the in-process stack: the exports service beside it, and the calls a caller makes. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyLedgerReplySchema } from "@rda/contracts";
import { jetstreamManager, requestJson } from "@rda/service-kit";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import {
  type ExportSettings,
  type ObjectStore,
  type RunningExports,
  startExports,
} from "../../services/exports/src/index.ts";
import { withKey } from "../support/http.ts";
import type { Stack } from "../support/stack.ts";

export interface ExportsBeside {
  readonly dir: string;
  readonly service: RunningExports;
  stop(): Promise<void>;
}

/** Fast pacing and a short ack wait, so the tests finish and a dead worker's job comes back soon. */
export const FAST: ExportSettings = {
  pagesPerSecond: 50,
  ackWaitMs: 2_000,
  pageRetryMs: 200,
  balanceRetryMs: 500,
};

export async function startExportsBeside(
  stack: Stack,
  settings: ExportSettings = FAST,
  objects?: ObjectStore,
): Promise<ExportsBeside> {
  const dir = await mkdtemp(join(tmpdir(), "rda-exports-"));
  const service = await startExports(
    {
      nats: await stack.natsAs("exports"),
      redis: stack.redis,
      subjects: stack.subjects,
      namespace: stack.namespace,
      logger: silentLogger(),
      objects,
      settings: { storageDir: dir, ...settings },
    },
    { port: 0, host: "127.0.0.1" },
  );
  return {
    dir,
    service,
    async stop() {
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Job {
  id: string;
  state: string;
  quote: {
    estimated_rows: number;
    estimated_pages: number;
    ceiling_credits: number;
    eta_seconds: number;
    method: string;
  };
  progress: {
    pages_done: number;
    rows_done: number;
    credits_spent: number;
    percent: number;
    eta_seconds: number | null;
  };
  reason: string | null;
  result: {
    file_url: string;
    manifest: Record<string, unknown> & { rows: number; sha256: string; bytes: number };
  } | null;
}

export async function call(
  stack: Stack,
  key: string | undefined,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = key === undefined ? {} : withKey(key);
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: JSON.parse(text) as Record<string, unknown>,
    headers: response.headers,
  };
}

export const jobOf = (answer: { body: Record<string, unknown> }) => answer.body.data as Job;

export async function waitForState(
  stack: Stack,
  key: string,
  id: string,
  states: string[],
  timeoutMs = 60_000,
): Promise<Job> {
  const job = await waitFor(
    async () => {
      const answer = await call(stack, key, "GET", `/v1/exports/${id}`);
      // Told to try again (a busy machine: 429, 503) is asked again; anything else is the test's failure.
      if (answer.status === 429 || answer.status === 503) return undefined;
      if (answer.status !== 200)
        throw new Error(`GET /v1/exports/${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const job = jobOf(answer);
      return states.includes(job.state) ? job : undefined;
    },
    `export ${id} to reach ${states.join(" or ")}`,
    timeoutMs,
  );
  return job as Job;
}

/**
 * Until no export job waits in the queue or is held by a worker. A worker lets go of a job (acks
 * its queue message) only once it stopped working on it: a paused or cancelled job is then past
 * its last page, refund and write, and nothing moves it until it is queued again.
 */
export async function waitForWorkersIdle(stack: Stack): Promise<void> {
  const jsm = await jetstreamManager(stack.nats);
  const { jobStream, jobConsumer } = stack.subjects.exports;
  await waitFor(async () => {
    const queue = await jsm.consumers.info(jobStream, jobConsumer);
    return queue.num_pending === 0 && queue.num_ack_pending === 0;
  }, "the export workers holding no job");
}

/** Every row of the window, paged through the public API exactly as its docs say (sort=asc). */
export async function pageThroughApi(
  stack: Stack,
  key: string,
  kind: "posts" | "comments",
  source: string,
  after: number,
  before: number,
): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let cursor = after;
  let pages = 0;
  for (;;) {
    const url = `${stack.gatewayUrl}/v1/${kind}?${source}&after=${cursor}&before=${before}&sort=asc&limit=100`;
    const response = await fetch(url, { headers: withKey(key) });
    if (response.status !== 200)
      throw new Error(`paging answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as {
      data: Record<string, unknown>[];
      _service: { cursor: number | null; has_more: boolean };
    };
    pages += 1;
    rows.push(...body.data);
    if (!body._service.has_more || body._service.cursor === null) return { rows, pages };
    cursor = body._service.cursor;
  }
}

export async function verifyLedger(stack: Stack) {
  const reply = await requestJson(
    stack.nats,
    stack.subjects.billing.verifyLedger,
    {},
    verifyLedgerReplySchema,
    30_000,
  );
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.value;
}

/** RFC 4180, read independently of the writer: quoted fields, doubled quotes, CRLF records. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  if (field !== "" || record.length > 0) throw new Error("the CSV does not end with CRLF");
  return records;
}
