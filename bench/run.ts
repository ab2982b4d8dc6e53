/**
 * `pnpm bench`: the same 25-post page (a) straight from the simulator, (b) through a bare fastify
 * proxy, (c) through the whole gateway path (auth, limits, debit, adapter, envelope), and (d)
 * /v1/account; then a moderate fixed-rate run of (a) and (c) for the "adds ≤ 2 ms at p50" aim.
 * Every service runs as its own process (its own main.ts); needs local Redis and NATS.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { buildSubjects, createKeyReplySchema } from "@rda/contracts";
import { connectNats, createLogger, requestJson } from "@rda/service-kit";
import { findInfrastructure } from "@rda/service-kit/testing";
import autocannon, { type Result } from "autocannon";
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const MODERATE_RATE = Number(process.env.BENCH_MODERATE_RATE ?? 200);

interface Figures {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  p99_9_ms: number;
  non2xx: number;
  errors: number;
}

function figures(result: Result): Figures {
  return {
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    p99_9_ms: result.latency.p99_9 ?? result.latency.p999 ?? Number.NaN,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(
  label: string,
  url: string,
  options: { headers?: Record<string, string>; rate?: number } = {},
) {
  process.stdout.write(`bench: ${label} …\n`);
  await autocannon({ url, connections: 4, duration: 2, headers: options.headers }); // warm-up
  const result = await autocannon({
    url,
    connections: options.rate ? 10 : CONNECTIONS,
    duration: DURATION_S,
    headers: options.headers,
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  const measured = figures(result);
  if (measured.non2xx > 0 || measured.errors > 0)
    process.stdout.write(`bench:   warning: ${measured.non2xx} non-2xx, ${measured.errors} errors\n`);
  return measured;
}

async function main() {
  const infrastructure = await findInfrastructure();
  const namespace = `bench-${process.pid}`;
  const common = {
    REDIS_URL: infrastructure.redisUrl,
    NATS_URL: infrastructure.natsUrl,
    RDA_NAMESPACE: namespace,
  };
  const [simPort, proxyPort, gatewayPort, billingHealth, adapterHealth] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  process.stdout.write("bench: starting simulator, billing, adapter-posts, gateway and a bare proxy …\n");
  const children = [
    startProcess("services/upstream-sim/src/main.ts", { SIM_PORT: String(simPort) }),
    startProcess("services/billing/src/main.ts", { ...common, HEALTH_PORT: String(billingHealth) }),
    startProcess("services/adapter-posts/src/main.ts", {
      ...common,
      UPSTREAM_URL: simUrl,
      HEALTH_PORT: String(adapterHealth),
    }),
    startProcess("services/gateway/src/main.ts", {
      ...common,
      PORT: String(gatewayPort),
      // The bench is the only client: raise the shared reserve out of the way.
      UPSTREAM_RESERVE_QPS: "1000000",
      UPSTREAM_RESERVE_BURST: "1000000",
    }),
    startProcess("bench/bare-proxy.ts", { PORT: String(proxyPort), UPSTREAM_URL: simUrl }),
  ];
  try {
    for (const url of [
      `${simUrl}/api/subreddits/search?limit=1`,
      `http://127.0.0.1:${billingHealth}/readyz`,
      `http://127.0.0.1:${adapterHealth}/readyz`,
      `${gatewayUrl}/readyz`,
      `${proxyUrl}/api/subreddits/search?limit=1`,
    ]) {
      await waitForHttp(url, 60_000);
    }
    const key = await createBenchKey(infrastructure.natsUrl, namespace);
    const headers = { "x-api-key": key };
    const subreddit = await busiestSubreddit(simUrl);
    const page = `subreddit=${subreddit}&limit=25&sort=desc`;
    const direct = `${simUrl}/api/posts/search?${page}`;
    const check = await (await fetch(`${gatewayUrl}/v1/posts?${page}`, { headers })).json();
    // The adapter asks the upstream for the same 25-row page; it may hand back fewer rows (it keeps
    // the cursor same-second-safe), so only check that the gateway path serves data at all.
    if (!Array.isArray((check as { data?: unknown[] }).data))
      throw new Error(`the gateway does not serve the bench page: ${JSON.stringify(check).slice(0, 300)}`);

    const results = {
      a_simulator_direct: await measure("(a) simulator direct", direct),
      b_bare_proxy: await measure("(b) bare fastify proxy", `${proxyUrl}/api/posts/search?${page}`),
      c_gateway: await measure("(c) whole gateway path", `${gatewayUrl}/v1/posts?${page}`, { headers }),
      d_account: await measure("(d) /v1/account", `${gatewayUrl}/v1/account`, { headers }),
      moderate_a_simulator_direct: await measure(`(a) at ${MODERATE_RATE} req/s`, direct, {
        rate: MODERATE_RATE,
      }),
      moderate_c_gateway: await measure(`(c) at ${MODERATE_RATE} req/s`, `${gatewayUrl}/v1/posts?${page}`, {
        headers,
        rate: MODERATE_RATE,
      }),
    };
    const report = {
      when: new Date().toISOString(),
      // Other work on the machine skews every figure; the load average says how much there was.
      machine: { cpus: cpus().length, node: process.version, load_average_1m_5m_15m: loadavg() },
      settings: { duration_s: DURATION_S, connections: CONNECTIONS, moderate_rate: MODERATE_RATE, page },
      results,
      ratios: {
        c_over_a_throughput: round(
          results.c_gateway.requests_per_second / results.a_simulator_direct.requests_per_second,
        ),
        c_over_b_throughput: round(
          results.c_gateway.requests_per_second / results.b_bare_proxy.requests_per_second,
        ),
        moderate_added_p50_ms: round(
          results.moderate_c_gateway.p50_ms - results.moderate_a_simulator_direct.p50_ms,
        ),
      },
    };
    printTable(report.results, report.ratios);
    process.stdout.write(`bench: load average during the run: ${loadavg().map(round).join(" ")}\n`);
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    writeFileSync(new URL("./results/latest.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write("bench: wrote bench/results/latest.json\n");
  } finally {
    await stopAll(children);
  }
}

async function createBenchKey(natsUrl: string, namespace: string): Promise<string> {
  const logger = createLogger("bench", { level: "warn" });
  const nats = await connectNats(natsUrl, "bench", logger);
  const request = { credits: 100_000_000, rate_limit: { qps: 100_000, burst: 1_000_000 }, label: "bench" };
  const subjects = buildSubjects(namespace);
  const reply = await requestJson(nats, subjects.billing.createKey, request, createKeyReplySchema, 5_000);
  await nats.close();
  if (!reply.ok) throw new Error(`cannot create the bench key: ${reply.message}`);
  return reply.value.key;
}

async function busiestSubreddit(simUrl: string): Promise<string> {
  const response = await fetch(`${simUrl}/api/subreddits/search?limit=1&sort=desc&sort_type=subscribers`);
  const body = (await response.json()) as { data: { display_name: string }[] };
  const name = body.data[0]?.display_name;
  if (!name) throw new Error("the simulator lists no subreddit");
  return name;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function printTable(results: Record<string, Figures>, ratios: Record<string, number>): void {
  const rows = Object.entries(results).map(([name, f]) => ({
    run: name,
    "req/s": f.requests_per_second,
    "p50 ms": f.p50_ms,
    "p99 ms": f.p99_ms,
    "p99.9 ms": f.p99_9_ms,
    "non-2xx": f.non2xx,
  }));
  console.table(rows);
  console.table(ratios);
}

await main();
