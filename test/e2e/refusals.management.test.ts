/**
 * The monitors and exports routes refuse as the data routes do (docs/api.md#errors), over real HTTP,
 * NATS and Redis: every refusal is `{error, code, param?}` from the one catalog, an empty body and a
 * `__proto__` body are handled alike on every route, an unknown query parameter is a 400 on every
 * route, and nothing refused is charged.
 */
import { exportListSchema } from "@rda/contracts";
import { requestJson, sha256Hex } from "@rda/service-kit";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_WEBHOOK_SETTINGS,
  type RunningMonitors,
  startMonitors,
} from "../../services/monitors/src/index.ts";
import { expectErrorBody, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, jobOf, startExportsBeside } from "./exports.support.ts";
import { type Receiver, SEALING_KEY, startReceiver, verified } from "./monitor-webhooks.support.ts";

const DAY = 86_400;
const before = Math.floor(Date.now() / 1000) - 10 * DAY;
let stack: Stack;
let monitors: RunningMonitors;
let exportsService: ExportsBeside;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack();
  receiver = await startReceiver();
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: {
      limits: { maxMonitorsPerAccount: 25, minIntervalSeconds: 60 },
      tickMs: 100,
      // Webhooks on, to a receiver on this machine: a monitor's secret can be rotated.
      webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, sealingKey: SEALING_KEY, allowLoopback: true },
    },
  });
  exportsService = await startExportsBeside(stack);
}, 120_000);

afterAll(async () => {
  await exportsService?.stop();
  await monitors?.stop();
  await receiver?.stop();
  await stack?.stop();
});

interface Sent {
  readonly key?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

async function send(method: string, path: string, sent: Sent = {}) {
  const headers: Record<string, string> = { ...(sent.key ? withKey(sent.key) : {}), ...sent.headers };
  const response = await fetch(`${stack.gatewayUrl}${path}`, { method, headers, body: sent.body });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

const JSON_TYPE = { "content-type": "application/json" };
const subreddit = () => stack.simulator.corpus.subreddits[0]!.name;

async function newMonitor(key: string): Promise<string> {
  const definition = { kind: "post", subreddit: subreddit(), interval_seconds: 300 };
  const created = await send("POST", "/v1/monitors", {
    key,
    body: JSON.stringify(definition),
    headers: JSON_TYPE,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.data.monitor.id as string;
}

async function newExport(key: string): Promise<string> {
  const body = { kind: "posts", subreddit: "dataisbeautiful", after: before - DAY, before };
  const quoted = await send("POST", "/v1/exports", { key, body: JSON.stringify(body), headers: JSON_TYPE });
  expect(quoted.status, JSON.stringify(quoted.json)).toBe(201);
  return jobOf({ body: quoted.json }).id;
}

describe("refusals of the monitors and exports routes", () => {
  it("carry the catalog's code and status, and name the parameter at fault", async () => {
    const owner = await stack.createKey({ credits: 10 });
    const other = await stack.createKey({ credits: 10 });
    const monitorId = await newMonitor(owner.key);
    const exportId = await newExport(owner.key);
    const cases = [
      ["GET", `/v1/monitors/${monitorId}`, other.key, 404, "resource_not_found", "id"],
      ["GET", "/v1/monitors/mon_!!", owner.key, 404, "resource_not_found", "id"],
      ["GET", `/v1/exports/${exportId}`, other.key, 404, "resource_not_found", undefined],
      ["GET", `/v1/exports/${exportId}/file`, owner.key, 409, "state_conflict", undefined],
      ["POST", `/v1/exports/${exportId}/resume`, owner.key, 409, "state_conflict", undefined],
      ["POST", `/v1/monitors/${monitorId}/test`, owner.key, 409, "state_conflict", undefined],
      ["GET", "/v1/monitors", undefined, 401, "missing_api_key", undefined],
    ] as const;
    for (const [method, path, key, status, code, param] of cases) {
      const answer = await send(method, path, key === undefined ? {} : { key });
      expect(answer.status, `${method} ${path}`).toBe(status);
      expectErrorBody(answer.json, status);
      expect(answer.json.code, `${method} ${path}`).toBe(code);
      expect(answer.json.param, `${method} ${path}`).toBe(param);
      expect(answer.headers.get("x-request-id")).toBeTruthy();
    }
    const badField = await send("POST", "/v1/monitors", {
      key: owner.key,
      body: JSON.stringify({ kind: "thread", subreddit: subreddit() }),
      headers: JSON_TYPE,
    });
    expect(badField.json).toEqual({
      error: expect.stringMatching(/^kind: /),
      code: "invalid_parameter",
      param: "kind",
    });
    const badExport = await send("POST", "/v1/exports", {
      key: owner.key,
      body: JSON.stringify({ kind: "threads", subreddit: "x1", after: before - DAY, before }),
      headers: JSON_TYPE,
    });
    expect(badExport.json).toMatchObject({ code: "invalid_parameter", param: "kind" });
    expect(await stack.balanceOf(owner.id)).toBe(10);
  }, 60_000);

  it("answers an empty JSON body alike on every route: as no fields", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const monitorId = await newMonitor(key);
    const exportId = await newExport(key);
    const empty = { key, body: "", headers: JSON_TYPE };
    expect((await send("PATCH", `/v1/monitors/${monitorId}`, empty)).status).toBe(200);
    expect((await send("POST", `/v1/exports/${exportId}/cancel`, empty)).status).toBe(200);
    expect((await send("DELETE", `/v1/monitors/${monitorId}`, empty)).status).toBe(200);
    const created = await send("POST", "/v1/monitors", empty);
    expect(created.status).toBe(400);
    expect(created.json).toMatchObject({ code: "invalid_parameter", param: "kind" });
  }, 60_000);

  it("refuses a `__proto__` key in a body alike on monitors and exports, naming it", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const body = `{"kind":"post","subreddit":"${subreddit()}","__proto__":{"paused":true}}`;
    for (const path of ["/v1/monitors", "/v1/exports"]) {
      const answer = await send("POST", path, { key, body, headers: JSON_TYPE });
      expect(answer.status, path).toBe(400);
      expect(answer.json).toEqual({
        error: "invalid parameter: unknown field '__proto__'",
        code: "invalid_parameter",
        param: "__proto__",
      });
    }
    expect(await stack.balanceOf(id)).toBe(10);
  });

  it("refuses an unknown query parameter with 400 on every route, and charges nothing", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const monitorId = await newMonitor(key);
    const exportId = await newExport(key);
    const paths = [
      ["GET", `/v1/monitors/${monitorId}/items?foo=1`, "foo"],
      ["GET", `/v1/monitors/${monitorId}/items?__proto__=1`, "__proto__"],
      ["GET", `/v1/monitors/${monitorId}/items?limit=1&limit=2`, "limit"],
      ["GET", "/v1/monitors?foo=1", "foo"],
      ["GET", `/v1/monitors/${monitorId}?constructor=1`, "constructor"],
      ["DELETE", `/v1/monitors/${monitorId}?foo=1`, "foo"],
      ["GET", `/v1/exports/${exportId}?foo=1`, "foo"],
      ["POST", `/v1/exports/${exportId}/cancel?foo=1`, "foo"],
      ["GET", "/v1/posts?subreddit=python&foo=1", "foo"],
    ] as const;
    for (const [method, path, param] of paths) {
      const answer = await send(method, path, { key });
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(answer.json, `${method} ${path}`).toMatchObject({ code: "invalid_parameter", param });
    }
    expect((await send("GET", `/v1/monitors/${monitorId}`, { key })).status).toBe(200);
    expect(await stack.balanceOf(id)).toBe(10);
  }, 60_000);

  it("gives a 429 of the exports service Retry-After and its code, as any 429", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const body = JSON.stringify({ kind: "posts", subreddit: "dataisbeautiful", after: before - DAY, before });
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 30 && refused === undefined; i += 1) {
      const answer = await send("POST", "/v1/exports", { key, body, headers: JSON_TYPE });
      if (answer.status === 429) refused = answer;
    }
    expect(refused?.json.code).toBe("quote_rate_limited");
    // The quote limit is per account and calendar minute: come back when the next minute starts.
    const retryAfter = Number(refused?.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  }, 60_000);
});

describe("health answers", () => {
  it("say `status` on the exports service as on the gateway, never `error`", async () => {
    for (const base of [exportsService.service.url, stack.gatewayUrl]) {
      const live = await fetch(`${base}/livez`);
      expect(live.status, base).toBe(200);
      expect(await live.json(), base).toEqual({ status: "ok" });
    }
    const ready = await fetch(`${exportsService.service.url}/readyz`);
    expect(await ready.json()).toEqual({ status: "ready" });
  });
});

describe("Idempotency-Key on the POSTs that create", () => {
  it("makes one export and one charge stream of 20 concurrent POST /v1/exports confirm:true with one key", async () => {
    const { key, id } = await stack.createKey({ credits: 500 });
    const body = JSON.stringify({
      kind: "posts",
      subreddit: "dataisbeautiful",
      after: before - DAY,
      before,
      confirm: true,
    });
    const headers = { ...JSON_TYPE, "idempotency-key": `export-${id}` };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send("POST", "/v1/exports", { key, body, headers })),
    );
    const started = answers.filter((answer) => answer.status === 202);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(started.length + busy.length, JSON.stringify(answers.map((a) => a.status))).toBe(20);
    expect(started.length).toBeGreaterThanOrEqual(1);
    for (const answer of busy) expect(answer.json.code).toBe("idempotency_in_progress");
    const ids = new Set(started.map((answer) => answer.json.data.id));
    expect(ids.size).toBe(1);
    const again = await send("POST", "/v1/exports", { key, body, headers });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data.id).toEqual([...ids][0]);
    const listed = await requestJson(
      stack.nats,
      stack.subjects.exports.commands.list,
      { key_id: id },
      exportListSchema,
      5_000,
    );
    expect(listed.ok && listed.value.jobs.map((job) => job.id)).toEqual([...ids]);
    const changed = await send("POST", "/v1/exports", {
      key,
      body: body.replace("dataisbeautiful", "python"),
      headers,
    });
    expect(changed.status).toBe(422);
    expect(changed.json.code).toBe("idempotency_key_reused");
  }, 90_000);

  it("makes one monitor of 20 concurrent POST /v1/monitors with one key", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const body = JSON.stringify({ kind: "post", subreddit: subreddit(), interval_seconds: 300 });
    const headers = { ...JSON_TYPE, "idempotency-key": `monitor-${id}` };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send("POST", "/v1/monitors", { key, body, headers })),
    );
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + answers.filter((answer) => answer.status === 409).length).toBe(20);
    expect(new Set(created.map((answer) => answer.json.data.monitor.id)).size).toBe(1);
    const listed = await send("GET", "/v1/monitors", { key });
    expect(listed.json.data.monitors).toHaveLength(1);
    const again = await send("POST", "/v1/monitors", { key, body, headers });
    expect(again.status).toBe(201);
    expect(again.json.data.monitor.id).toBe(listed.json.data.monitors[0].id);
    expect(await stack.balanceOf(id)).toBe(10);
  }, 90_000);

  /**
   * 20 copies of one POST with one key, sent at once: exactly one is served (the rest are told it
   * is in progress, or get its stored answer again), and every answer served carries the same data.
   */
  async function sendTwentyAtOnce(path: string, key: string, headers: Record<string, string>) {
    const answers = await Promise.all(Array.from({ length: 20 }, () => send("POST", path, { key, headers })));
    const served = answers.filter((answer) => answer.status === 200);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(served.length + busy.length, JSON.stringify(answers.map((a) => a.status))).toBe(20);
    for (const answer of busy) expect(answer.json.code).toBe("idempotency_in_progress");
    const first = served.filter((answer) => answer.headers.get("idempotent-replayed") !== "true");
    expect(first).toHaveLength(1);
    for (const answer of served) expect(answer.json.data).toEqual(first[0]!.json.data);
    return first[0]!.json.data;
  }

  it("resumes an export once for 20 concurrent POST /v1/exports/{id}/resume with one key, and replays it", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 5_000 });
    const window = { kind: "comments", subreddit: "dataisbeautiful", after: before - 60 * DAY, before };
    const started = await send("POST", "/v1/exports", {
      key,
      body: JSON.stringify({ ...window, confirm: true }),
      headers: JSON_TYPE,
    });
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    const id = started.json.data.id as string;
    // Pages enough that the job is still under way when the pause arrives.
    expect(started.json.data.quote.estimated_pages).toBeGreaterThan(20);
    const paused = await send("POST", `/v1/exports/${id}/pause`, { key });
    expect(paused.json.data?.state, JSON.stringify(paused.json)).toBe("paused");

    const headers = { "idempotency-key": `resume-${keyId}` };
    const resumed = await sendTwentyAtOnce(`/v1/exports/${id}/resume`, key, headers);
    expect(resumed.state).toBe("queued");
    // Later, the same request under the same key: the first answer again, whatever the job did since.
    const again = await send("POST", `/v1/exports/${id}/resume`, { key, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data).toEqual(resumed);
    // Another body under the same key is another request.
    const raised = await send("POST", `/v1/exports/${id}/resume`, {
      key,
      body: JSON.stringify({ max_credits: 4_000 }),
      headers: { ...headers, ...JSON_TYPE },
    });
    expect(raised.status).toBe(422);
    expect(raised.json.code).toBe("idempotency_key_reused");
    await send("POST", `/v1/exports/${id}/cancel`, { key });
  }, 90_000);

  it("rotates a webhook secret once for 20 concurrent POST /v1/monitors/{id}/rotate-secret with one key", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 10 });
    const definition = {
      kind: "post",
      subreddit: subreddit(),
      interval_seconds: 300,
      webhook_url: receiver.url,
    };
    const created = await send("POST", "/v1/monitors", {
      key,
      body: JSON.stringify(definition),
      headers: JSON_TYPE,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const monitor = created.json.data.monitor.id as string;
    const original = created.json.data.webhook_secret as string;

    const headers = { "idempotency-key": `rotate-${keyId}` };
    const rotated = await sendTwentyAtOnce(`/v1/monitors/${monitor}/rotate-secret`, key, headers);
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(original);
    const again = await send("POST", `/v1/monitors/${monitor}/rotate-secret`, { key, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data.webhook_secret).toBe(rotated.webhook_secret);
    // The answer kept for the replay holds the new secret sealed, never in the clear.
    const record = stack.keys.idempotentRequest(keyId, sha256Hex(headers["idempotency-key"]));
    const kept = await stack.redis.hgetBuffer(record, "body");
    expect(kept?.length).toBeGreaterThan(rotated.webhook_secret.length);
    expect(kept?.includes(rotated.webhook_secret)).toBe(false);
    expect(kept?.includes(rotated.webhook_secret.slice("whsec_".length, -2))).toBe(false);
    // One rotation only: a test event is signed with the secret answered and the original, its predecessor.
    const seen = receiver.received.length;
    expect((await send("POST", `/v1/monitors/${monitor}/test`, { key })).status).toBe(200);
    const event = receiver.received.slice(seen).find((request) => request.body.includes('"monitor.test"'))!;
    expect(verified(rotated.webhook_secret, event).type).toBe("monitor.test");
    expect(verified(original, event).type).toBe("monitor.test");
    expect(String(event.headers["webhook-signature"]).split(" ")).toHaveLength(2);

    const withBody = await send("POST", `/v1/monitors/${monitor}/rotate-secret`, {
      key,
      body: "{}",
      headers: { ...headers, ...JSON_TYPE },
    });
    expect(withBody.status).toBe(422);
    expect(withBody.json.code).toBe("idempotency_key_reused");
    // Without the header, each rotation makes a new secret, as before.
    const fresh = await send("POST", `/v1/monitors/${monitor}/rotate-secret`, { key });
    expect(fresh.status).toBe(200);
    expect(fresh.json.data.webhook_secret).not.toBe(rotated.webhook_secret);
  }, 90_000);

  it("lets a refused POST be retried under the same key as a new attempt", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const headers = { ...JSON_TYPE, "idempotency-key": `retry-${id}` };
    const bad = JSON.stringify({ kind: "post", subreddit: subreddit(), interval_seconds: 1 });
    expect((await send("POST", "/v1/monitors", { key, body: bad, headers })).status).toBe(400);
    expect((await send("POST", "/v1/monitors", { key, body: bad, headers })).status).toBe(400);
  });
});

describe("a GET retried the moment its answer arrives", () => {
  it("gets that answer, 1,000 times out of 1,000", async () => {
    const { key, id } = await stack.createKey({ credits: 1_000, qps: 1_000, burst: 1_000 });
    // A settled window (ended days ago), kept for the settled bound, so the answers are cache hits
    // however long the loop takes.
    const before = Math.floor(Date.now() / 1000) - 10 * 86_400;
    const path = `/v1/posts?subreddit=${subreddit()}&before=${before}&limit=1`;
    let replayed = 0;
    // A first ask refused for the moment (429 or 503: on a busy machine a cache read may give up
    // after its bound, and the fetch then find the budget spent) is no answer: nothing is kept or
    // charged, and its retry would be a new request. It is counted, and the next round asks anew.
    let refusedFirst = 0;
    for (let i = 0; replayed < 1_000; i += 1) {
      const headers = { "idempotency-key": `race-${id}-${i}` };
      const first = await fetch(`${stack.gatewayUrl}${path}`, { headers: { ...withKey(key), ...headers } });
      const firstBody = await first.text();
      if (first.status === 429 || first.status === 503) {
        refusedFirst += 1;
        expect(refusedFirst, `round ${i}: ${first.status} ${firstBody}`).toBeLessThanOrEqual(50);
        continue;
      }
      const retry = await fetch(`${stack.gatewayUrl}${path}`, { headers: { ...withKey(key), ...headers } });
      const retryBody = await retry.text();
      if (retry.status === 200 && retryBody === firstBody && retry.headers.get("idempotent-replayed"))
        replayed += 1;
      else expect.fail(`round ${i}: ${first.status} then ${retry.status} ${retryBody.slice(0, 200)}`);
    }
    expect(replayed).toBe(1_000);
    // Exactly the thousand answers were charged: no refused ask, and no replay.
    expect(await stack.balanceOf(id)).toBe(0);
  }, 300_000);
});
