/**
 * A stack for fault tests: its own redis-server and nats-server (JetStream on) on free ports, so a
 * test may pause, stop or restart them without touching any other test, and the services as real
 * processes running their built JavaScript (`pnpm build`), each of which a test may kill and start
 * again. A steady trickle of data requests, timed on the client, shows what callers see meanwhile;
 * the ledger is read straight from the private Redis to show what they paid.
 *
 * Timeouts are the documented ones (docs/operations.md#timeouts) except the adapter's: the simulator
 * answers at once, so ADAPTER_TIMEOUT_MS is 2 s (UPSTREAM_DEADLINE_MS 1.5 s), which bounds the answer
 * to a request whose adapter died under it. With `work` the upstream deadline is 6 s (ADAPTER_TIMEOUT_MS
 * 8 s): an export page held at a hanging upstream stays debited and unanswered that long, ample
 * time for a test to stop billing or kill a worker before the page fails.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildSubjects,
  createKeyReplySchema,
  showKeyReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import {
  connectNats,
  type NatsConnection,
  openRedis,
  type Redis,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import {
  freePort,
  type PrivateServer,
  silentLogger,
  startPrivateNats,
  startPrivateRedis,
  waitFor,
} from "@rda/service-kit/testing";
import { buildServices, type ServiceProcess, spawnService } from "../support/service-processes.ts";
import { waitForSettled } from "../support/settled.ts";

const subjects = buildSubjects("");
const keys = redisKeys("");

export const ADAPTER_TIMEOUT_MS = 2_000;

/**
 * With `work`, the exports worker's ack wait: a killed worker's job returns to the queue after it,
 * and an export page's debit is voided 5 of them after it was taken (workDebitDeadlineMs).
 */
export const EXPORTS_ACK_WAIT_MS = 3_000;
export const EXPORT_PAGE_DEADLINE_MS = 5 * EXPORTS_ACK_WAIT_MS;

export interface FaultStackOptions {
  /** Also run "gateway-crash", a second gateway whose debits are voided after 3 s. */
  readonly crashGateway?: boolean;
  /**
   * Also run the background work: "exports" and "monitors" processes, with a short ack wait and
   * delivery lease (a killed worker's work is taken over within seconds), and webhooks allowed to
   * loopback receivers.
   */
  readonly work?: boolean;
  /**
   * A NATS the test started itself (a cluster, `startPrivateNatsCluster`): its URLs, and the copies
   * every stream and bucket keeps (NATS_REPLICAS). Without it the stack starts its own single server.
   */
  readonly nats?: { readonly url: string; readonly replicas: number };
}

/** A fault of the upstream simulator (POST /__sim/faults). */
export interface UpstreamFault {
  readonly mode: "error" | "busy" | "ratelimit" | "timeout" | "garbage";
  readonly path?: string;
  readonly count?: number;
}

/** How each process is started: its service, what it logs once ready, and where it says so. */
interface ServiceSpec {
  readonly service: string;
  readonly ready: RegExp;
  readonly env: NodeJS.ProcessEnv;
  /** Its readiness endpoint. */
  readonly readyz?: string;
  /** A test entry module run with tsx instead of the built service (settings passed in code). */
  readonly entry?: string;
  readonly args?: readonly string[];
}

export interface TrickleResult {
  readonly status: number;
  /** Milliseconds from sending to the whole answer read (or to the connection failing). */
  readonly ms: number;
  /** The connection failed (refused, reset) instead of an answer. */
  readonly failed?: string;
}

export interface Trickle {
  /** 200s received so far. */
  oks(): number;
  /** Requests sent and not answered yet. */
  waiting(): number;
  /** Stops sending and resolves once every request sent has its answer. */
  stop(): Promise<TrickleResult[]>;
}

export interface FaultStack {
  readonly redis: PrivateServer;
  /** The stack's own NATS server; undefined when the test gave it one (`options.nats`). */
  readonly nats: PrivateServer | undefined;
  readonly natsUrl: string;
  readonly simUrl: string;
  /** A subreddit the simulator holds posts of. */
  readonly subreddit: string;
  url(name: string): string;
  /** A running process, to read what it logged or to signal it. */
  process(name: string): ServiceProcess;
  /** Kills a process (SIGKILL by default) and resolves once it has exited. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a process again and resolves once it logged that it is ready. */
  restart(name: string): Promise<void>;
  /** The readiness of each process that has a `/readyz`: true when it answers 200. */
  readiness(): Promise<Record<string, boolean>>;
  waitUntilReady(): Promise<void>;
  createKey(credits: number): Promise<{ id: string; key: string }>;
  trickle(gateway: string, key: string, everyMs?: number): Trickle;
  /** Waits until no debit is pending and no refund waits in the stream: what was charged is final. */
  settled(): Promise<void>;
  /** Credits charged to a key: the drop of its balance, and the same figure summed from its journal. */
  charged(key: { id: string }, initial: number): Promise<{ balanceDrop: number; journal: number }>;
  /** `ledger verify`, as the operator CLI asks billing for it. */
  verifyLedger(): Promise<{ ok: boolean }>;
  /** The key's balance as billing shows it. */
  balanceOf(key: { id: string }): Promise<number>;
  /** Adds a fault to the upstream simulator; `clearUpstreamFaults` removes them all. */
  upstreamFault(fault: UpstreamFault): Promise<void>;
  clearUpstreamFaults(): Promise<void>;
  /** How many requests the simulator failed on purpose so far. */
  faultsInjected(): Promise<number>;
  /** The connection the test talks to NATS through. */
  readonly client: NatsConnection;
  /** The stack's private Redis, as the test reads it. */
  readonly ledger: Redis;
  stop(): Promise<void>;
}

export async function startFaultStack(options: FaultStackOptions = {}): Promise<FaultStack> {
  const work = options.work === true;
  // Exports and monitors run from their test replica entries (tsx), so they are not built.
  buildServices(["gateway", "billing", "adapter-posts", "upstream-sim"]);
  const [redis, nats] = await Promise.all([
    freePort().then(startPrivateRedis),
    options.nats === undefined ? freePort().then(startPrivateNats) : undefined,
  ]);
  const natsUrl = options.nats?.url ?? nats!.url;
  // Whatever was started before a step failed is stopped again, so a failed start leaks no server.
  let started = false;
  const running = new Map<string, ServiceProcess>();
  const exportsDir = work ? mkdtempSync(join(tmpdir(), "rda-fault-exports-")) : undefined;
  /** Stops the processes and servers started so far, and removes the exports' folder. */
  const stopStarted = async () => {
    // A process left stopped (SIGSTOP) by a failed test would never see the SIGTERM.
    for (const child of running.values()) child.child.kill("SIGCONT");
    await Promise.all([...running.values()].map((child) => child.stop()));
    await Promise.all([redis.remove(), nats?.remove()]);
    if (exportsDir !== undefined) rmSync(exportsDir, { recursive: true, force: true });
  };
  try {
    const ports = Object.fromEntries(
      await Promise.all(
        ["gateway", "gateway-crash", "billing", "adapter-posts", "sim", "exports", "monitors"].map(
          async (name) => [name, await freePort()],
        ),
      ),
    ) as Record<string, number>;
    const simUrl = `http://127.0.0.1:${ports.sim}`;
    const common = {
      ...process.env,
      NATS_URL: natsUrl,
      NATS_REPLICAS: String(options.nats?.replicas ?? 1),
      REDIS_URL: redis.url,
      RDA_NAMESPACE: "",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      UPSTREAM_URL: simUrl,
      ADAPTER_TIMEOUT_MS: String(work ? 8_000 : ADAPTER_TIMEOUT_MS),
      UPSTREAM_DEADLINE_MS: work ? "6000" : "1500",
      UPSTREAM_ATTEMPT_TIMEOUT_MS: "750",
      // The trickle measures the product's own faults, not the upstream's budget.
      UPSTREAM_REQUESTS_PER_SECOND: "1000",
      UPSTREAM_CONCURRENCY: "64",
      // Nothing cached: the trickle repeats one request, which must reach the upstream (and its faults).
      CACHE_MAX_BYTES: "0",
      PENDING_SWEEP_MS: "250",
    };
    const specs = new Map<string, ServiceSpec>();
    const metricsPort = async () => String(await freePort());
    const gatewayEnv = async (name: string, pendingMs: number) => ({
      ...common,
      PORT: String(ports[name]),
      METRICS_PORT: await metricsPort(),
      // The internal listener (the MCP service's calls) too: its default port may be another stack's.
      GATEWAY_INTERNAL_PORT: String(await freePort()),
      PENDING_DEBIT_MS: String(pendingMs),
    });
    specs.set("upstream-sim", {
      service: "upstream-sim",
      ready: /upstream simulator listening/,
      env: { ...common, SIM_PORT: String(ports.sim), SIM_SCALE: "0.05", METRICS_PORT: await metricsPort() },
    });
    specs.set("billing", {
      service: "billing",
      ready: /billing ready/,
      env: { ...common, HEALTH_PORT: String(ports.billing), METRICS_PORT: await metricsPort() },
      readyz: `http://127.0.0.1:${ports.billing}/readyz`,
    });
    specs.set("adapter-posts", {
      service: "adapter-posts",
      ready: /adapter ready/,
      env: { ...common, HEALTH_PORT: String(ports["adapter-posts"]), METRICS_PORT: await metricsPort() },
      readyz: `http://127.0.0.1:${ports["adapter-posts"]}/readyz`,
    });
    // Longer than the longest outage the tests make (a 20 s Redis pause): answered requests settle.
    specs.set("gateway", {
      service: "gateway",
      ready: /gateway listening/,
      env: await gatewayEnv("gateway", 25_000),
      readyz: `http://127.0.0.1:${ports.gateway}/readyz`,
    });
    // The one killed mid-request: its debits are voided 3 s after admission.
    if (options.crashGateway)
      specs.set("gateway-crash", {
        service: "gateway",
        ready: /gateway listening/,
        env: await gatewayEnv("gateway-crash", 3_000),
        readyz: `http://127.0.0.1:${ports["gateway-crash"]}/readyz`,
      });

    if (work) {
      specs.set("exports", {
        service: "exports",
        ready: /exports listening/,
        // The queue's ack wait is no deployment's setting: the test's replica entry passes it in code.
        entry: "services/exports/test/support/replica-main.ts",
        args: [JSON.stringify({ ackWaitMs: EXPORTS_ACK_WAIT_MS })],
        env: {
          ...common,
          EXPORTS_PORT: String(ports.exports),
          METRICS_PORT: await metricsPort(),
          EXPORTS_DIR: exportsDir,
          EXPORTS_PAGES_PER_SECOND: "20",
          EXPORTS_BALANCE_RETRY_MS: "500",
          // A billing that does not answer is found out within a second, not five.
          BILLING_TIMEOUT_MS: "1000",
        },
      });
      specs.set("monitors", {
        service: "monitors",
        ready: /monitors ready/,
        // The loops' tick and lease lengths likewise, through the monitors' replica entry.
        entry: "services/monitors/test/support/replica-main.ts",
        args: [JSON.stringify({ tickMs: 200, leaseMs: 3_000, webhooks: { tickMs: 100, leaseMs: 2_000 } })],
        env: {
          ...common,
          HEALTH_PORT: String(ports.monitors),
          HEALTH_HOST: "127.0.0.1",
          METRICS_PORT: await metricsPort(),
          WEBHOOK_SEALING_KEY: randomBytes(32).toString("base64"),
          WEBHOOKS_ALLOW_LOOPBACK: "1",
          MONITOR_MIN_INTERVAL_SECONDS: "1",
          MONITOR_WEBHOOK_TIMEOUT_MS: "5000",
        },
        readyz: `http://127.0.0.1:${ports.monitors}/readyz`,
      });
    }

    const launch = async (name: string) => {
      const spec = specs.get(name)!;
      const child = spawnService(
        spec.service,
        spec.env,
        spec.entry ? { entry: spec.entry, args: spec.args } : { built: true },
      );
      running.set(name, child);
      await child.waitForLine(spec.ready, 60_000);
    };
    await launch("upstream-sim");
    await launch("billing");
    await Promise.all([...specs.keys()].filter((name) => !running.has(name)).map(launch));

    const client: NatsConnection = await connectNats(natsUrl, "fault-test", silentLogger());
    const ledger: Redis = await openRedis(redis.url, "fault-test", silentLogger(), {
      commandTimeoutMs: 30_000,
    });
    const subreddit = await someSubreddit(simUrl);

    const ask = async <S extends Parameters<typeof requestJson>[3]>(
      subject: string,
      payload: unknown,
      schema: S,
    ) => {
      const reply = await requestJson(client, subject, payload, schema, 10_000);
      if (!reply.ok) throw new Error(`billing: ${reply.error.message}`);
      return reply.value;
    };
    const readiness = async () => {
      const entries = await Promise.all(
        [...specs].flatMap(([name, spec]) =>
          spec.readyz
            ? [
                fetch(spec.readyz, { signal: AbortSignal.timeout(2_000) })
                  .then((response) => [name, response.status === 200] as const)
                  .catch(() => [name, false] as const),
              ]
            : [],
        ),
      );
      return Object.fromEntries(entries);
    };

    const simControl = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${simUrl}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`simulator ${method} ${path}: ${response.status}`);
      return response.json() as Promise<Record<string, unknown>>;
    };

    const stack: FaultStack = {
      redis,
      nats,
      natsUrl,
      simUrl,
      subreddit,
      client,
      ledger,
      url: (name) => `http://127.0.0.1:${ports[name]}`,
      process: (name) => running.get(name)!,
      async kill(name, signal = "SIGKILL") {
        const child = running.get(name)!.child;
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill(signal);
        await exited;
      },
      restart: launch,
      readiness,
      async waitUntilReady() {
        await waitFor(
          async () => Object.values(await readiness()).every(Boolean),
          "every process ready again",
          30_000,
        );
      },
      async createKey(credits) {
        const request = { credits, rate_limit: { qps: 1_000, burst: 1_000 }, label: "faults" };
        const reply = await ask(subjects.billing.createKey, request, createKeyReplySchema);
        if (reply.outcome !== "created") throw new Error("key refused");
        return { id: reply.id, key: reply.key };
      },
      trickle: (gateway, key, everyMs = 100) =>
        startTrickle(
          `http://127.0.0.1:${ports[gateway]}/v1/posts?subreddit=${subreddit}&limit=2`,
          key,
          everyMs,
        ),
      settled: () => waitForSettled({ redis: ledger, keys, nats: client, subjects }),
      async charged(key, initial) {
        const shown = await ask(subjects.billing.showKey, { id: key.id }, showKeyReplySchema);
        if (!shown.found) throw new Error(`no key ${key.id}`);
        const entries = await ledger.xrange(keys.journal(key.id), "-", "+");
        let journal = 0;
        for (const [, fields] of entries) {
          const type = fields[fields.indexOf("type") + 1];
          if (type === "debit" || type === "refund") journal -= Number(fields[fields.indexOf("delta") + 1]);
        }
        return { balanceDrop: initial - shown.key.credits_balance, journal };
      },
      verifyLedger: () => ask(subjects.billing.verifyLedger, {}, verifyLedgerReplySchema),
      async balanceOf(key) {
        const shown = await ask(subjects.billing.showKey, { id: key.id }, showKeyReplySchema);
        if (!shown.found) throw new Error(`no key ${key.id}`);
        return shown.key.credits_balance;
      },
      async upstreamFault(fault) {
        await simControl("POST", "/__sim/faults", fault);
      },
      async clearUpstreamFaults() {
        await simControl("DELETE", "/__sim/faults");
      },
      async faultsInjected() {
        return (await simControl("GET", "/__sim/stats")).faults_injected as number;
      },
      async stop() {
        ledger.disconnect();
        await client.close();
        await stopStarted();
      },
    };
    started = true;
    return stack;
  } finally {
    if (!started) await stopStarted();
  }
}

async function someSubreddit(simUrl: string): Promise<string> {
  const found = (await (await fetch(`${simUrl}/api/subreddits/search?limit=1`)).json()) as {
    data: { display_name: string }[];
  };
  return found.data[0]!.display_name;
}

/** One request every `everyMs`, whether or not the previous ones were answered: a steady load. */
function startTrickle(url: string, key: string, everyMs: number): Trickle {
  const results: Promise<TrickleResult>[] = [];
  let oks = 0;
  let waiting = 0;
  const send = async (): Promise<TrickleResult> => {
    const started = performance.now();
    waiting += 1;
    try {
      const response = await fetch(url, {
        headers: { "x-api-key": key },
        signal: AbortSignal.timeout(15_000),
      });
      await response.arrayBuffer();
      if (response.status === 200) oks += 1;
      return { status: response.status, ms: performance.now() - started };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
      return { status: 0, ms: performance.now() - started, failed: cause };
    } finally {
      waiting -= 1;
    }
  };
  const timer = setInterval(() => results.push(send()), everyMs);
  results.push(send());
  return {
    oks: () => oks,
    waiting: () => waiting,
    async stop() {
      clearInterval(timer);
      return Promise.all(results);
    },
  };
}

/** Runs `fault` under a trickle of requests with a fresh key, and reads what the key was charged. */
export async function underTrickle(
  stack: FaultStack,
  gateway: string,
  fault: (trickle: Trickle) => Promise<void>,
): Promise<{ results: TrickleResult[]; oks: number; charged: { balanceDrop: number; journal: number } }> {
  const initial = 10_000;
  const key = await stack.createKey(initial);
  const trickle = stack.trickle(gateway, key.key);
  await waitFor(() => trickle.oks() >= 5, "answers before the fault", 15_000);
  await fault(trickle);
  await stack.waitUntilReady();
  const afterFault = trickle.oks();
  await waitFor(() => trickle.oks() >= afterFault + 5, "answers after the fault", 15_000);
  const results = await trickle.stop();
  await stack.settled();
  const oks = results.filter((result) => result.status === 200).length;
  return { results, oks, charged: await stack.charged(key, initial) };
}

/** Percentile-free summary for failure messages: every status with its count and slowest answer. */
export function summary(results: readonly TrickleResult[]): string {
  const byStatus = new Map<string, { count: number; slowest: number }>();
  for (const result of results) {
    const label = result.failed ? `failed:${result.failed}` : String(result.status);
    const entry = byStatus.get(label) ?? { count: 0, slowest: 0 };
    byStatus.set(label, { count: entry.count + 1, slowest: Math.max(entry.slowest, Math.round(result.ms)) });
  }
  return [...byStatus].map(([label, { count, slowest }]) => `${label}×${count} (≤${slowest} ms)`).join(", ");
}
