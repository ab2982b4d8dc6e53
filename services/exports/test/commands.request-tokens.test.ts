/**
 * A create, a start and a resume sent again with the same request token (what the gateway sends for
 * a request under `Idempotency-Key`, docs/api.md#idempotency) are done once, over real NATS, Redis
 * and JetStream, with the adapters and billing's key lookup scripted on their subjects: the second
 * is answered with the job the first made or moved, as it is now, whether it arrives alongside the
 * first (both quoting at once) or after it, and the job is quoted once and queued once. Another
 * token is another command. No workers run here: a queued job's run waits on the work queue, where
 * the test counts them.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSubjects, EXPORTS_RPC, type ExportsRpcName, encodeAdapterReply } from "@rda/contracts";
import { jetstreamManager, type NatsConnection, type Redis, requestJson } from "@rda/service-kit";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { type RunningExports, startExports } from "../src/index.ts";

const namespace = testNamespace("extok");
const subjects = buildSubjects(namespace);
const DAY = 86_400;
const before = 1_700_000_000;
/** Three posts in the window: the quote's one probe page holds it all (one page, ceiling 1 credit). */
const body = { kind: "posts", subreddit: "dataisbeautiful", after: before - 2 * DAY, before };
const ROWS = [1, 2, 3].map((n) => ({ id: `p${n}`, created_utc: before - DAY + n, title: `post ${n}` }));

let nats: NatsConnection;
let redis: Redis;
let dir: string;
let service: RunningExports;
const scripted: { unsubscribe(): void }[] = [];
/** The listing pages the quotes asked for. */
let probes = 0;
/** While set, probe pages are held until this many are asked, then all answered together. */
let holdUntil: number | undefined;
const held: (() => void)[] = [];
const PROBE_PAGE = encodeAdapterReply(
  { outcome: "ok", cursor: before - DAY + 3, has_more: false },
  JSON.stringify(ROWS),
);

beforeAll(async () => {
  [nats, redis] = await Promise.all([connectTestNats(), connectTestRedis()]);
  const respond = (subject: string, answer: (reply: (data: Uint8Array | string) => void) => void) =>
    scripted.push(
      nats.subscribe(subject, { callback: (_error, message) => answer((data) => message.respond(data)) }),
    );
  respond(subjects.adapter.listPosts, (reply) => {
    probes += 1;
    if (holdUntil === undefined) return reply(PROBE_PAGE);
    held.push(() => reply(PROBE_PAGE));
    if (held.length < holdUntil) return;
    for (const release of held.splice(0)) release();
  });
  // The archive's count is not needed: the probe covers the window.
  respond(subjects.adapter.getActivity, (reply) =>
    reply(encodeAdapterReply({ outcome: "unavailable", message: "not scripted" })),
  );
  // A key made by an operator: its own owner.
  respond(subjects.billing.showKey, (reply) => reply(JSON.stringify({ found: false })));
  dir = await mkdtemp(join(tmpdir(), "rda-export-tokens-"));
  service = await startExports(
    {
      nats,
      redis,
      subjects,
      namespace,
      logger: silentLogger(),
      settings: { storageDir: dir, runWorkers: false },
    },
    { port: 0, host: "127.0.0.1" },
  );
}, 60_000);

afterAll(async () => {
  await service?.stop();
  for (const subscription of scripted) subscription.unsubscribe();
  const jsm = await jetstreamManager(nats);
  await jsm.streams.delete(subjects.exports.jobStream).catch(() => undefined);
  await deleteNamespaceKeys(redis, namespace);
  await rm(dir, { recursive: true, force: true });
  redis.disconnect();
  await nats.close();
});

const newToken = () => randomBytes(32).toString("hex");
/** Each test's own key: an account may have only a few exports active at once. */
let keyId: string;
beforeEach(() => {
  keyId = `key_${randomBytes(8).toString("hex")}`;
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
async function ask(name: ExportsRpcName, request: Record<string, unknown>): Promise<any> {
  const reply: z.ZodType = EXPORTS_RPC[name].reply;
  const answer = await requestJson(
    nats,
    subjects.exports.commands[name],
    { key_id: keyId, ...request },
    reply,
    15_000,
  );
  if (!answer.ok) throw new Error(`exports.${name}: ${answer.error.message}`);
  return answer.value;
}

/** The runs waiting on the work queue: one per start or resume that queued a job. */
async function queuedRuns(): Promise<number> {
  const jsm = await jetstreamManager(nats);
  return (await jsm.streams.info(subjects.exports.jobStream)).state.messages;
}

async function listed(): Promise<string[]> {
  return (await ask("list", {})).jobs.map((job: { id: string }) => job.id);
}

describe("an export command sent again with its request token", () => {
  it("makes and starts one job for a confirmed create sent twice at once and again later", async () => {
    const [runs, jobs, quoted] = [await queuedRuns(), await listed(), probes];
    const token = newToken();
    const create = () =>
      ask("create", { balance: 100, body: { ...body, confirm: true }, request_token: token });
    // Both quote at once: neither probe is answered until both are asked.
    holdUntil = 2;
    const [first, second] = await Promise.all([create(), create()]).finally(() => {
      holdUntil = undefined;
    });
    expect(probes - quoted).toBe(2);
    const again = await create();
    for (const answer of [first, second, again]) {
      expect(answer.outcome).toBe("ok");
      expect(answer.job.id).toBe(first.job.id);
      expect(answer.job.state).toBe("queued");
    }
    expect(probes - quoted).toBe(2);
    expect(await listed()).toEqual([first.job.id, ...jobs]);
    expect(await queuedRuns()).toBe(runs + 1);

    const other = await ask("create", {
      balance: 100,
      body: { ...body, confirm: true },
      request_token: newToken(),
    });
    expect(other.job.id).not.toBe(first.job.id);
    expect(await queuedRuns()).toBe(runs + 2);
  });

  it("starts the job a confirmed create quoted when its start was refused, once the balance covers it", async () => {
    const [runs, jobs, quoted] = [await queuedRuns(), await listed(), probes];
    const token = newToken();
    const create = (balance: number) =>
      ask("create", { balance, body: { ...body, confirm: true }, request_token: token });
    const refused = await create(0);
    expect(refused).toMatchObject({ outcome: "refused", code: "insufficient_credits" });
    const started = await create(100);
    expect(started.job.state).toBe("queued");
    expect(probes - quoted).toBe(1);
    expect(await listed()).toEqual([started.job.id, ...jobs]);
    expect(await queuedRuns()).toBe(runs + 1);
  });

  it("queues a quoted job once for a start sent twice at once and again later, each answered with the job", async () => {
    const { job } = await ask("create", { balance: 100, body });
    expect(job.state).toBe("quoted");
    const runs = await queuedRuns();
    const token = newToken();
    const start = () => ask("start", { id: job.id, balance: 100, request_token: token });
    const answers = [...(await Promise.all([start(), start()])), await start()];
    for (const answer of answers)
      expect(answer).toMatchObject({ outcome: "ok", job: { id: job.id, state: "queued" } });
    expect(await queuedRuns()).toBe(runs + 1);
    // Another start of the started job is refused, as without a token.
    const other = await ask("start", { id: job.id, balance: 100, request_token: newToken() });
    expect(other).toMatchObject({ outcome: "refused", code: "state_conflict" });
    expect(await queuedRuns()).toBe(runs + 1);
  });

  it("resumes a job once for a resume sent again after the job was paused since: the job as it is", async () => {
    const { job } = await ask("create", { balance: 100, body: { ...body, confirm: true } });
    expect((await ask("pause", { id: job.id })).job.state).toBe("paused");
    const runs = await queuedRuns();
    const token = newToken();
    const resume = () => ask("resume", { id: job.id, balance: 100, request_token: token });
    expect(await resume()).toMatchObject({ outcome: "ok", job: { id: job.id, state: "queued" } });
    // Paused again by its owner; the first resume's late retry must not undo that.
    expect((await ask("pause", { id: job.id })).job.state).toBe("paused");
    expect(await resume()).toMatchObject({ outcome: "ok", job: { id: job.id, state: "paused" } });
    expect(await queuedRuns()).toBe(runs + 1);
    const other = await ask("resume", { id: job.id, balance: 100, request_token: newToken() });
    expect(other).toMatchObject({ outcome: "ok", job: { id: job.id, state: "queued" } });
    expect(await queuedRuns()).toBe(runs + 2);
  });
});
