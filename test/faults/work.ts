/**
 * Exports and monitors on the fault stack (`startFaultStack({ work: true })`), asked over the public
 * HTTP API as a customer asks them, and what a fault test reads back: a job's state, its file's
 * rows, a webhook receiver's batches counted by their `webhook-id`.
 */
import { randomUUID } from "node:crypto";
import { buildSubjects, MONITORS_RPC, type MonitorsRpcRequest } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { askUntilServed } from "../support/http.ts";
import type { FaultStack } from "./fault-stack.ts";

const DAY = 86_400;

export interface Job {
  id: string;
  state: string;
  reason: string | null;
  progress: { pages_done: number; rows_done: number; credits_spent: number };
  result: { file_url: string; manifest: { rows: number } } | null;
}

export async function call(
  stack: FaultStack,
  key: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { "x-api-key": key, ...extraHeaders };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.url("gateway")}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Every comment in the stack's subreddit over the simulator's whole past: several pages. */
export function exportQuery(stack: FaultStack) {
  const before = Math.floor(Date.now() / 1000);
  return { kind: "comments", subreddit: stack.subreddit, after: before - 180 * DAY, before };
}

/** The simulator's path an export's pages are read from: a fault there fails a page. */
export const EXPORT_PAGES_PATH = "/api/comments/search";

/**
 * Starts an export as a careful client does: under one Idempotency-Key, asked again while the answer
 * is a try-again (a quote's sample refused on a busy machine), so it is started once.
 */
export async function startExport(stack: FaultStack, key: string): Promise<Job> {
  const start = { "idempotency-key": `start-${randomUUID()}` };
  const created = await askUntilServed(async () => {
    const answer = await call(
      stack,
      key,
      "POST",
      "/v1/exports",
      { ...exportQuery(stack), confirm: true },
      start,
    );
    return { ...answer, body: answer.json };
  });
  if (created.status !== 202)
    throw new Error(`export refused: ${created.status} ${JSON.stringify(created.json)}`);
  return created.json.data as Job;
}

export async function jobOf(stack: FaultStack, key: string, id: string): Promise<Job> {
  const answer = await call(stack, key, "GET", `/v1/exports/${id}`);
  if (answer.status !== 200) throw new Error(`export ${id}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.data as Job;
}

export async function waitForJob(
  stack: FaultStack,
  key: string,
  id: string,
  until: (job: Job) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<Job> {
  return (await waitFor(
    async () => {
      const job = await jobOf(stack, key, id);
      return until(job) ? job : undefined;
    },
    what,
    timeoutMs,
  )) as Job;
}

export const finished = (job: Job) => job.state === "done" || job.state === "failed";

/** The rows of a finished export's file, downloaded as its owner downloads it. */
export async function exportRows(stack: FaultStack, key: string, job: Job): Promise<{ id: string }[]> {
  const file = await fetch(`${stack.url("gateway")}${job.result?.file_url}`, {
    headers: { "x-api-key": key },
  });
  if (file.status !== 200) throw new Error(`download: ${file.status}`);
  const text = (await file.text()).trimEnd();
  return text === "" ? [] : text.split("\n").map((line) => JSON.parse(line) as { id: string });
}

/** Every row of the export's window paged through the public data API (sort=asc): the reference. */
export async function pageThroughApi(stack: FaultStack, key: string): Promise<{ id: string }[]> {
  const { subreddit, after, before } = exportQuery(stack);
  const rows: { id: string }[] = [];
  let cursor = after;
  for (;;) {
    const url = `${stack.url("gateway")}/v1/comments?subreddit=${subreddit}&after=${cursor}&before=${before}&sort=asc&limit=100`;
    const response = await fetch(url, { headers: { "x-api-key": key } });
    if (response.status !== 200)
      throw new Error(`paging answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as {
      data: { id: string }[];
      _service: { cursor: number | null; has_more: boolean };
    };
    rows.push(...body.data);
    if (!body._service.has_more || body._service.cursor === null) return rows;
    cursor = body._service.cursor;
  }
}

export async function createMonitor(
  stack: FaultStack,
  key: string,
  webhookUrl: string,
): Promise<{ id: string; secret: string }> {
  const created = await call(stack, key, "POST", "/v1/monitors", {
    kind: "post",
    subreddit: stack.subreddit,
    interval_seconds: 1,
    backfill_from: "30d",
    webhook_url: webhookUrl,
  });
  if (created.status !== 201)
    throw new Error(`monitor refused: ${created.status} ${JSON.stringify(created.json)}`);
  const data = created.json.data as { monitor: { id: string }; webhook_secret: string };
  return { id: data.monitor.id, secret: data.webhook_secret };
}

/**
 * Asks the monitors service over NATS exactly as the gateway does after admitting a request
 * (`monitors.<action>`): the way to reach it while billing, which admits every gateway request,
 * is stopped.
 */
export async function askMonitors<N extends "update" | "delete">(
  stack: FaultStack,
  action: N,
  request: MonitorsRpcRequest<N>,
): Promise<unknown> {
  const subjects = buildSubjects("");
  // The call's own reply schema, as the gateway decodes it; only its outcome is read here.
  const schema = MONITORS_RPC[action].reply;
  const reply = await requestJson(stack.client, subjects.monitors[action], request, schema, 30_000);
  if (!reply.ok) throw new Error(`monitors.${action}: ${reply.error.message}`);
  if (!reply.value.ok) throw new Error(`monitors.${action} refused: ${JSON.stringify(reply.value)}`);
  return reply.value.value;
}

/** Sends SIGSTOP to a process, and SIGCONT once `during` is done (even when it threw). */
export async function whileStopped<T>(stack: FaultStack, name: string, during: () => Promise<T>): Promise<T> {
  const child = stack.process(name).child;
  child.kill("SIGSTOP");
  try {
    return await during();
  } finally {
    child.kill("SIGCONT");
  }
}
