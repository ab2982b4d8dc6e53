/** The client's export calls against the running gateway and exports service: quote, start, wait, download. */

import { createGatewayClient, type ExportJob, type GatewayClient } from "@rda/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, startExportsBeside } from "./exports.support.ts";

let stack: Stack;
let service: ExportsBeside;
let api: GatewayClient;
const before = Math.floor(Date.now() / 1000) - 10 * 86_400;

beforeAll(async () => {
  stack = await startStack();
  service = await startExportsBeside(stack, { pagesPerSecond: 5, ackWaitMs: 2_000 });
  const { key } = await stack.createKey({ credits: 200 });
  api = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: key });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await stack?.stop();
});

describe("export jobs through the SDK", () => {
  it("waits for an export with a progress callback that climbs to 100 %, then downloads the file", async () => {
    const quote = await api.createExport({
      kind: "comments",
      subreddit: "dataisbeautiful",
      after: before - 3 * 86_400,
      before,
    });
    if (!quote.ok) throw new Error(quote.error.message);
    expect(quote.value.state).toBe("quoted");
    const started = await api.startExport(quote.value.id);
    expect(started.ok).toBe(true);

    const seen: ExportJob[] = [];
    const done = await api.waitForExport(quote.value.id, {
      intervalMs: 150,
      onProgress: (job) => seen.push(job),
    });
    if (!done.ok) throw new Error(done.error.message);
    expect(done.value.state).toBe("done");
    const percents = seen.map((job) => job.progress.percent);
    expect(percents.at(-1)).toBe(100);
    expect(percents.length).toBeGreaterThan(2);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));

    const file = await api.downloadExport(quote.value.id);
    if (!file.ok) throw new Error(file.error.message);
    const rows = new TextDecoder().decode(file.value).trimEnd().split("\n");
    expect(rows).toHaveLength(done.value.result!.manifest.rows);
  }, 120_000);

  it("answers a stranger's export id as not found, as a value", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const stranger = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: key });
    const mine = await api.createExport({
      kind: "posts",
      subreddit: "dataisbeautiful",
      after: before - 86_400,
      before,
    });
    if (!mine.ok) throw new Error(mine.error.message);
    const theirs = await stranger.getExport(mine.value.id);
    expect(theirs.ok).toBe(false);
    if (!theirs.ok) expect(theirs.error).toMatchObject({ status: 404, message: "no such export" });
    // Each key lists its own exports only, newest first.
    const listed = await api.listExports();
    expect(listed.ok && listed.value.jobs[0]?.id).toBe(mine.value.id);
    expect(await stranger.listExports()).toMatchObject({ ok: true, value: { jobs: [] } });
  });
});
