/**
 * High availability of background work: the stack's processes on a private three-node NATS
 * JetStream cluster with NATS_REPLICAS=3, as production runs. Every stream and bucket the services
 * set up keeps 3 copies; the leader of a stream is killed with SIGKILL while an export runs on it
 * (the job queue), and while the refund of a monitor's webhook batch waits in the refund stream for
 * billing, which is down (the webhook was removed mid-delivery; the monitors keep their own state in
 * Redis), and the work goes on on the other two nodes: no row or page lost or doubled, every credit
 * charged once or given back once, `ledger verify` clean.
 */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  type JetStreamManager,
  jetstreamManager,
  type NatsConnection,
  redisKeys,
} from "@rda/service-kit";
import {
  freePort,
  type PrivateNatsCluster,
  type PrivateServer,
  silentLogger,
  startPrivateNatsCluster,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startReceiver } from "../e2e/monitor-webhooks.support.ts";
import { type FaultStack, startFaultStack } from "./fault-stack.ts";
import {
  askMonitors,
  createMonitor,
  EXPORT_PAGES_PATH,
  exportRows,
  finished,
  pageThroughApi,
  startExport,
  waitForJob,
} from "./work.ts";

const subjects = buildSubjects("");
const journalKey = (keyId: string) => redisKeys("").journal(keyId);
const NODES = 3;

let cluster: PrivateNatsCluster;
let stack: FaultStack;
let operator: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  const ports = await Promise.all(Array.from({ length: 2 * NODES }, () => freePort()));
  cluster = await startPrivateNatsCluster(ports.slice(0, NODES), ports.slice(NODES));
  operator = await connectNats(cluster.url, "fault-test-operator", silentLogger());
  // JetStream answers once the nodes have elected their meta leader.
  jsm = (await waitFor(
    () => jetstreamManager(operator).catch(() => undefined),
    "the cluster's JetStream",
    60_000,
  )) as JetStreamManager;
  stack = await startFaultStack({ work: true, nats: { url: cluster.url, replicas: NODES } });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await operator?.close();
  await cluster?.remove();
}, 60_000);

/** Nodes a test killed: started again after it, passed or failed, so the next test has all three. */
const killedNodes: PrivateServer[] = [];
afterEach(async () => {
  for (const node of killedNodes.splice(0)) await rejoin(node);
}, 90_000);

/** Kills the node leading `stream` with SIGKILL; it is started again after the test. */
async function killLeaderOf(stream: string): Promise<void> {
  // Right after a node rejoined, the cluster's JetStream API may miss an answer while its meta
  // group catches up: the operator asks again, as an operator would.
  const leader = (await waitFor(
    async () => (await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader,
    `the leader of ${stream}`,
    30_000,
  )) as string;
  const node = cluster.nodes.get(leader);
  if (node === undefined)
    throw new Error(`${stream}'s leader ${leader} is none of ${[...cluster.nodes.keys()]}`);
  await node.stop("SIGKILL");
  killedNodes.push(node);
  await waitFor(
    async () => {
      const now = (await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader;
      return now !== undefined && now !== leader;
    },
    `a new leader of ${stream}`,
    30_000,
  );
}

/** Starts a killed node again and waits until every stream has all its copies current. */
async function rejoin(node: PrivateServer): Promise<void> {
  await node.start();
  await waitFor(
    async () => {
      try {
        for await (const stream of jsm.streams.list()) {
          const replicas = stream.cluster?.replicas ?? [];
          if (replicas.length !== NODES - 1 || replicas.some((peer) => !peer.current || peer.offline))
            return false;
        }
        return true;
      } catch {
        return false; // the API missed an answer while the node caught up: asked again
      }
    },
    "every stream's copies current again",
    60_000,
  );
}

describe("a three-node NATS cluster losing a stream's leader", () => {
  it("keeps every stream and bucket the services set up on 3 nodes", async () => {
    const streams: Record<string, number> = {};
    for await (const stream of jsm.streams.list()) streams[stream.config.name] = stream.config.num_replicas;
    expect(Object.keys(streams)).toEqual(
      expect.arrayContaining([subjects.refundStream, subjects.exports.jobStream]),
    );
    for (const [name, replicas] of Object.entries(streams)) expect(replicas, name).toBe(NODES);
  });

  it("finishes an export whose job queue's leader was killed, every row once and every page charged once", async () => {
    const initial = 1_000;
    const owner = await stack.createKey(initial);
    const job = await startExport(stack, owner.key);
    // A page held at a hanging upstream keeps the job running (its queue message unacked) meanwhile.
    const injected = await stack.faultsInjected();
    await stack.upstreamFault({ mode: "timeout", path: EXPORT_PAGES_PATH });
    await waitFor(async () => (await stack.faultsInjected()) > injected, "a page asked upstream");
    await killLeaderOf(subjects.exports.jobStream);
    await stack.clearUpstreamFaults();

    const done = await waitForJob(stack, owner.key, job.id, finished, "the export to finish");
    expect(done.state, done.reason ?? "").toBe("done");
    await stack.settled();
    const pages = done.progress.pages_done;
    expect(done.progress.credits_spent).toBe(pages);
    expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: pages, journal: pages });
    const rows = await exportRows(stack, owner.key, done);
    const reader = await stack.createKey(1_000);
    expect(rows.map((row) => row.id)).toEqual((await pageThroughApi(stack, reader.key)).map((row) => row.id));
    expect(await stack.verifyLedger()).toMatchObject({ ok: true });
  }, 150_000);

  it("gives back, once, the credit of a webhook batch removed mid-delivery while billing is down and the refund stream's leader is killed", async () => {
    const initial = 100;
    const receiver = await startReceiver();
    try {
      receiver.hold();
      const owner = await stack.createKey(initial);
      const monitor = await createMonitor(stack, owner.key, receiver.url);
      await waitFor(() => receiver.received.length > 0, "the first batch in flight", 60_000);
      expect(await stack.balanceOf(owner)).toBe(initial - 1);

      // Billing gone (not paused: a paused billing would answer the refund request itself once it
      // runs again): removing the webhook refunds the batch in flight, and the refund can only be
      // queued in the refund stream. Its leader dies while the refund waits there.
      await stack.kill("billing");
      await askMonitors(stack, "update", { key_id: owner.id, id: monitor.id, body: { webhook_url: null } });
      await waitFor(
        async () =>
          ((await jsm.consumers.info(subjects.refundStream, subjects.refundConsumer).catch(() => undefined))
            ?.num_pending ?? 0) > 0,
        "the batch's refund waiting in the refund stream",
        30_000,
      );
      await killLeaderOf(subjects.refundStream);
      await stack.restart("billing");

      await waitFor(
        async () => (await stack.balanceOf(owner)) === initial,
        "the batch's credit back",
        60_000,
      );
      // The receiver now accepts the batch it held: its webhook is gone, so it is not paid for.
      receiver.release();
      await stack.settled();
      expect(await stack.charged(owner, initial)).toEqual({ balanceDrop: 0, journal: 0 });
      const refunds = (await stack.ledger.xrange(journalKey(owner.id), "-", "+")).filter(
        ([, fields]) => fields[fields.indexOf("type") + 1] === "refund",
      );
      expect(refunds).toHaveLength(1);
      expect(new Set(receiver.received.map((request) => request.headers["webhook-id"])).size).toBe(1);
      await askMonitors(stack, "delete", { key_id: owner.id, id: monitor.id });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    } finally {
      await receiver.stop();
    }
  }, 150_000);
});
