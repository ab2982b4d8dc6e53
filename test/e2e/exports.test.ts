/**
 * Export jobs end to end, over HTTP through the gateway, with the exports service, billing and the
 * adapters on real NATS and Redis: the quote, the file in each format against paging the public API
 * for the same 30-day window, credits equal to the pages fetched, the ceiling, the refusals, and
 * ownership.
 */
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { createKeyReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTES_PER_MINUTE } from "../../services/exports/src/index.ts";
import { expectErrorBody, isTryAgain, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";
import {
  call,
  type ExportsBeside,
  type Job,
  jobOf,
  pageThroughApi,
  parseCsv,
  startExportsBeside,
  verifyLedger,
  waitForState,
} from "./exports.support.ts";

const DAY = 86_400;
let stack: Stack;
let exportsService: ExportsBeside;
let subreddit = "";
const before = Math.floor(Date.now() / 1000) - 10 * DAY;
const after = before - 30 * DAY;

beforeAll(async () => {
  stack = await startStack();
  exportsService = await startExportsBeside(stack);
  // The simulator's busiest community (names are stable across seeds): 30 days of its posts span
  // several pages.
  subreddit = "dataisbeautiful";
}, 120_000);
afterAll(async () => {
  await exportsService?.stop();
  await stack?.stop();
});

async function download(key: string, job: Job) {
  const response = await fetch(`${stack.gatewayUrl}/v1/exports/${job.id}/file`, { headers: withKey(key) });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function runExport(key: string, body: Record<string, unknown>) {
  const created = await call(stack, key, "POST", "/v1/exports", { ...body, confirm: true });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return waitForState(stack, key, jobOf(created).id, ["done", "failed"], 90_000);
}

describe("an export of a community's 30 days", () => {
  it("is quoted for free, within 10% of the pages paging really takes, and its files match the API row for row", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 2_000 });
    const quoted = await call(stack, key, "POST", "/v1/exports", { kind: "posts", subreddit, after, before });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(201);
    const quote = jobOf(quoted);
    expect(quote.state).toBe("quoted");
    expect(quote.quote.method).toMatch(/probe|counted by the archive/);
    expect(Number(quoted.headers.get("x-credits-used"))).toBe(0);
    expect(await stack.balanceOf(keyId)).toBe(2_000);

    const reference = await pageThroughApi(stack, key, "posts", `subreddit=${subreddit}`, after, before);
    expect(reference.pages).toBeGreaterThan(2);
    expect(Math.abs(quote.quote.estimated_pages - reference.pages) / reference.pages).toBeLessThanOrEqual(
      0.1,
    );
    expect(quote.quote.ceiling_credits).toBeGreaterThanOrEqual(quote.quote.estimated_pages);
    const ids = reference.rows.map((row) => row.id);

    const started = await call(stack, key, "POST", `/v1/exports/${quote.id}/start`);
    expect(started.status).toBe(200);
    const balanceBefore = Number(started.headers.get("x-credits-remaining"));
    const jsonl = await waitForState(stack, key, quote.id, ["done", "failed"], 90_000);
    expect(jsonl.state, jsonl.reason ?? "").toBe("done");
    expect(jsonl.progress.percent).toBe(100);
    expect(jsonl.progress.pages_done).toBe(reference.pages);
    expect(jsonl.progress.credits_spent).toBe(reference.pages);
    expect(await stack.balanceOf(keyId)).toBe(balanceBefore - reference.pages);
    const lines = (await download(key, jsonl))
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual(reference.rows);
    expect(jsonl.result?.manifest).toMatchObject({
      rows: reference.rows.length,
      query: { kind: "posts", subreddit, after, before },
      covered: {
        first_created_utc: reference.rows[0]!.created_utc,
        last_created_utc: reference.rows.at(-1)!.created_utc,
      },
    });

    const csv = await runExport(key, {
      kind: "posts",
      subreddit,
      after,
      before,
      format: "csv",
      gzip: true,
      fields: "id,created_utc,title,score",
    });
    expect(csv.state, csv.reason ?? "").toBe("done");
    const records = parseCsv(gunzipSync(await download(key, csv)).toString("utf8"));
    expect(records[0]).toEqual(["id", "created_utc", "title", "score"]);
    expect(records.slice(1)).toEqual(
      reference.rows.map((row) => [row.id, String(row.created_utc), row.title, String(row.score)]),
    );

    const parquet = await runExport(key, { kind: "posts", subreddit, after, before, format: "parquet" });
    expect(parquet.state, parquet.reason ?? "").toBe("done");
    const file = await download(key, parquet);
    const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    const read = (await parquetReadObjects({ file: buffer })) as Record<string, unknown>[];
    expect(read.map((row) => row.id)).toEqual(ids);
    // Integers stay integers (BIGINT reads back as bigint) and times are timestamps.
    expect(typeof read[0]!.score).toBe("bigint");
    expect(read[0]!.created_utc).toBeInstanceOf(Date);
    expect(read.map((row) => (row.created_utc as Date).getTime() / 1000)).toEqual(
      reference.rows.map((row) => row.created_utc),
    );
    expect(read.map((row) => Number(row.score))).toEqual(reference.rows.map((row) => row.score));
    expect(read.map((row) => row.title)).toEqual(reference.rows.map((row) => row.title));

    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 240_000);
});

describe("limits and bad input", () => {
  it("refuses each bad field with a 400 that names it, and charges nothing", async () => {
    const created = await stack.createKey({ credits: 50 });
    const cases: [unknown, RegExp][] = [
      [{ kind: "posts", after, before }, /exactly one source/],
      [{ kind: "posts", subreddit, author: "someone", after, before }, /exactly one source/],
      [{ kind: "threads", subreddit, after, before }, /kind: must be posts or comments/],
      [{ kind: "posts", subreddit, before }, /after: is required/],
      [{ kind: "posts", subreddit, after: before, before: after }, /after: must be earlier than before/],
      [{ kind: "posts", subreddit, after: before - 400 * DAY, before }, /at most 366 days/],
      [{ kind: "posts", subreddit, after, before, format: "xlsx" }, /format: must be jsonl, csv or parquet/],
      [{ kind: "posts", subreddit, after, before, format: "parquet", gzip: true }, /gzip/],
      [{ kind: "posts", subreddit, after, before, fields: "id,nope" }, /fields/],
      [{ kind: "posts", subreddit, after, before, colour: "red" }, /unknown field: colour/],
      [{ kind: "posts", subreddit: "r/!!", after, before }, /subreddit/],
      [{ kind: "posts", subreddit, after, before, max_credits: 0 }, /max_credits/],
      ["not json", /not valid JSON/],
      [[1, 2], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(stack, created.key, "POST", "/v1/exports", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expectErrorBody(answer.body);
      expect(answer.body.error as string).toMatch(message);
    }
    expect(await stack.balanceOf(created.id)).toBe(50);
  });

  it("limits an account's quotes a minute over all its keys (each reads the archive), with a 429 that says when, and charges nothing", async () => {
    const account = `acct_${randomBytes(8).toString("hex")}`;
    const keys: { id: string; key: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const reply = await requestJson(
        stack.nats,
        stack.subjects.billing.createAccountKey,
        { account_id: account, label: `quotes ${i}` },
        createKeyReplySchema,
        5_000,
      );
      if (!reply.ok || reply.value.outcome !== "created") throw new Error("no account key");
      keys.push({ id: reply.value.id, key: reply.value.key });
    }
    const other = await stack.createKey({ credits: 50 });
    const balances = await Promise.all(keys.map((key) => stack.balanceOf(key.id)));
    const quote = (key: string) =>
      call(stack, key, "POST", "/v1/exports", { kind: "posts", subreddit, after: before - DAY, before });
    // A minute that turns during the loop starts a new count: then ask the whole round again.
    let answers: Awaited<ReturnType<typeof quote>>[] = [];
    for (let round = 0; round < 3; round += 1) {
      const minute = Math.floor(Date.now() / 60_000);
      answers = [];
      // The account's two keys take turns: together they have the one account's quota.
      for (let i = 0; i <= DEFAULT_QUOTES_PER_MINUTE; i += 1) answers.push(await quote(keys[i % 2]!.key));
      if (Math.floor(Date.now() / 60_000) === minute) break;
    }
    // Each of the minute's first ten is quoted, or told to try again: the upstream busy (503), or
    // our upstream budget spent for the moment (429 global_rate_limited), as a busy machine can make it.
    for (const answer of answers.slice(0, -1))
      if (!isTryAgain(answer.status, answer.body))
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    // Until the minute turns, as the limit counts.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.body.error as string).toMatch(/at most 10 export quotes a minute per account/);
    // Another account (an operator's key is one of its own) still has its quota.
    expect((await quote(other.key)).status).toBe(201);
    expect(await Promise.all(keys.map((key) => stack.balanceOf(key.id)))).toEqual(balances);
  });

  it("refuses at confirm an export the balance cannot pay for, with the shortfall", async () => {
    const created = await stack.createKey({ credits: 1 });
    const answer = await call(stack, created.key, "POST", "/v1/exports", {
      kind: "posts",
      subreddit,
      after,
      before,
      confirm: true,
    });
    expect(answer.status).toBe(402);
    expect(answer.body.error as string).toMatch(/balance is 1: \d+ more credits are needed/);
    expect(await stack.balanceOf(created.id)).toBe(1);
  });

  it("refuses at start when the balance covers the estimate but not the ceiling, naming the shortfall", async () => {
    const created = await stack.createKey({ credits: 50 });
    // One day of posts is a page or two: the estimate fits the balance, the ceiling of 57 does not.
    const quoted = jobOf(
      await call(stack, created.key, "POST", "/v1/exports", {
        kind: "posts",
        subreddit,
        after: before - DAY,
        before,
        max_credits: 57,
      }),
    );
    expect(quoted.quote.estimated_pages).toBeLessThan(50);
    expect(quoted.quote.ceiling_credits).toBe(57);
    const refused = await call(stack, created.key, "POST", `/v1/exports/${quoted.id}/start`);
    expect(refused.status).toBe(402);
    expectErrorBody(refused.body);
    expect(refused.body.error).toMatch(/up to 57 credits .* the balance is 50: 7 more credits are needed/);
    expect(await stack.balanceOf(created.id)).toBe(50);
    const still = jobOf(await call(stack, created.key, "GET", `/v1/exports/${quoted.id}`));
    expect(still.state).toBe("quoted");
    expect(still.progress.credits_spent).toBe(0);
  });

  it("stops at a ceiling below the pages needed, says why, and never spends past it", async () => {
    const created = await stack.createKey({ credits: 500 });
    const job = await runExport(created.key, { kind: "posts", subreddit, after, before, max_credits: 2 });
    expect(job.state).toBe("failed");
    expect(job.reason).toMatch(/credit ceiling of 2/);
    expect(job.progress.credits_spent).toBe(2);
    expect(await stack.balanceOf(created.id)).toBe(498);
  });
});

describe("the concurrent exports limit", () => {
  it("counts an account's exports over all its keys, and an operator's key on its own", async () => {
    const account = `acct_${randomBytes(8).toString("hex")}`;
    const keys = [];
    for (let i = 0; i < 2; i++) {
      const reply = await requestJson(
        stack.nats,
        stack.subjects.billing.createAccountKey,
        { account_id: account, label: `exports ${i}` },
        createKeyReplySchema,
        5_000,
      );
      if (!reply.ok || reply.value.outcome !== "created") throw new Error("no account key");
      keys.push(reply.value.key);
    }
    // A long window of a busy community, paused at once: each stays active without finishing.
    const body = { kind: "comments", subreddit, after, before, max_credits: 300 };
    const started = [];
    for (const key of [keys[0], keys[1], keys[0]] as string[]) {
      const answer = await call(stack, key, "POST", "/v1/exports", { ...body, confirm: true });
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      started.push({ key, id: jobOf(answer).id });
      await call(stack, key, "POST", `/v1/exports/${jobOf(answer).id}/pause`);
    }
    const fourth = await call(stack, keys[1] as string, "POST", "/v1/exports", { ...body, confirm: true });
    expect(fourth.status).toBe(429);
    expectErrorBody(fourth.body);
    expect(fourth.body.error).toMatch(/an account may have at most 3 .* over all its keys/);
    // An operator's key belongs to no account: the account's exports do not count against it.
    const operator = await stack.createKey({ credits: 500 });
    const own = await call(stack, operator.key, "POST", "/v1/exports", { ...body, confirm: true });
    expect(own.status, JSON.stringify(own.body)).toBe(202);
    await call(stack, operator.key, "POST", `/v1/exports/${jobOf(own).id}/cancel`);
    // Cancelling one of the account's exports frees its place for any of the account's keys.
    const first = started[0] as { key: string; id: string };
    expect(jobOf(await call(stack, first.key, "POST", `/v1/exports/${first.id}/cancel`)).state).toBe(
      "cancelled",
    );
    const again = await call(stack, keys[1] as string, "POST", "/v1/exports", { ...body, confirm: true });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    for (const job of [...started.slice(1), { key: keys[1] as string, id: jobOf(again).id }])
      await call(stack, job.key, "POST", `/v1/exports/${job.id}/cancel`);
  });
});

describe("ownership", () => {
  it("hides a job from every other key (404) and from no key (401)", async () => {
    const owner = await stack.createKey({ credits: 100 });
    const other = await stack.createKey({ credits: 100 });
    const job = jobOf(
      await call(stack, owner.key, "POST", "/v1/exports", {
        kind: "posts",
        subreddit,
        after: before - DAY,
        before,
      }),
    );
    for (const [method, path] of [
      ["GET", `/v1/exports/${job.id}`],
      ["GET", `/v1/exports/${job.id}/file`],
      ["POST", `/v1/exports/${job.id}/cancel`],
      ["POST", `/v1/exports/${job.id}/start`],
    ] as const) {
      const stranger = await call(stack, other.key, method, path);
      expect(stranger.status, `${method} ${path}`).toBe(404);
      expectErrorBody(stranger.body);
      expect((await call(stack, undefined, method, path)).status).toBe(401);
    }
    expect(jobOf(await call(stack, owner.key, "GET", `/v1/exports/${job.id}`)).state).toBe("quoted");
  });
});
