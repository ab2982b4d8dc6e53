/**
 * `pnpm bench`: the same 25-post page (a) straight from the simulator, (b) through a bare fastify
 * proxy, through the whole gateway path (auth, admission, cache or adapter, envelope, settlement)
 * (c1) as a cache hit and (c2) fetched anew (`Cache-Control: no-cache`), and (d) /v1/account, (e)
 * through the floor of the design's shape (a fastify edge, one NATS request-reply, an undici
 * responder, and nothing else), (e2) the cached floor (the same, the responder answering from
 * memory), (f) through the floor with one admission round trip to
 * billing before each request, (g) billing's admissions per second, asked straight over NATS in
 * bursts (billing-admissions.ts); then a moderate fixed-rate run of (a), (c) and (e) for the
 * latency each adds. Every service runs as its own process (its own main.ts); needs local Redis
 * and NATS. Each stage runs BENCH_RUNS times (default 3) and the median is reported, with the CPU
 * time each process spent per request over the measured window (read from /proc): the figure that
 * moves least with the load of the machine. Then (v): every variant (limit, fields, q) of settled
 * windows, answers per upstream call beside the physical limit (bench/variant-mix.ts). Then (z): a mixed Zipf workload through the response
 * cache on the strict budget (bench/cache-mix.ts). Last, (s): the product inside the upstream's strict
 * budget (bench/strict-budget.ts), reporting customer answers by status and upstream requests a second.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { buildSubjects, createKeyReplySchema } from "@rda/contracts";
import { connectNats, createLogger, requestJson } from "@rda/service-kit";
import { findInfrastructure } from "@rda/service-kit/testing";
import autocannon, { type Result } from "autocannon";
import { type AdmissionFigures, measureAdmissions } from "./billing-admissions.ts";
import { type CacheMixFigures, runCacheMixStage } from "./cache-mix.ts";
import { pidListeningOn, startCpuWindow, type WatchedProcess } from "./cpu.ts";
import { loopbackRoundTripMicros } from "./loopback.ts";
import { type PriorityFigures, runPriorityStage } from "./priority-share.ts";
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";
import { runStrictBudgetStage, type StrictBudgetFigures } from "./strict-budget.ts";
import { runVariantMix, type VariantMixFigures } from "./variant-mix.ts";

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const MODERATE_RATE = Number(process.env.BENCH_MODERATE_RATE ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Stage (g): admissions sent to billing, and how many are in flight at once. */
const ADMISSIONS = Number(process.env.BENCH_ADMISSIONS ?? 20_000);
const ADMISSION_CONCURRENCY = Number(process.env.BENCH_ADMISSION_CONCURRENCY ?? 500);
/** BENCH_ONLY=a,c,m: run only the stages whose names start with these letters (m: the moderate ones). */
const ONLY = process.env.BENCH_ONLY?.split(",").map((letter) => letter.trim());

interface Figures {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  p99_9_ms: number;
  non2xx: number;
  errors: number;
  /** CPU milliseconds per request, by process, over the measured window. */
  cpu_ms_per_request: Record<string, number>;
  cpu_ms_per_request_total: number;
}

interface Stage {
  label: string;
  url: string;
  headers?: Record<string, string>;
  rate?: number;
  /** The processes this path crosses. */
  watched: readonly WatchedProcess[];
}

async function runOnce(stage: Stage): Promise<Figures> {
  const stop = startCpuWindow(stage.watched);
  const result: Result = await autocannon({
    url: stage.url,
    connections: stage.rate ? 10 : CONNECTIONS,
    duration: DURATION_S,
    headers: stage.headers,
    ...(stage.rate ? { overallRate: stage.rate } : {}),
  });
  const cpu = stop();
  const served = Math.max(1, result.requests.total);
  const perRequest = Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, round3(ms / served)]));
  return {
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    p99_9_ms: result.latency.p99_9 ?? result.latency.p999 ?? Number.NaN,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu_ms_per_request: perRequest,
    cpu_ms_per_request_total: round3(Object.values(perRequest).reduce((sum, ms) => sum + ms, 0)),
  };
}

/** Runs a stage RUNS times after a warm-up and keeps the run with the median throughput. */
async function measure(stage: Stage): Promise<Figures & { runs: number[] }> {
  process.stdout.write(`bench: ${stage.label} …\n`);
  await autocannon({ url: stage.url, connections: 4, duration: 2, headers: stage.headers });
  const runs: Figures[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await runOnce(stage));
  const sorted = [...runs].sort((a, b) => a.requests_per_second - b.requests_per_second);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  if (runs.some((run) => run.non2xx > 0 || run.errors > 0))
    process.stdout.write(`bench:   warning: non-2xx answers or errors during ${stage.label}\n`);
  return { ...median, runs: runs.map((run) => run.requests_per_second) };
}

async function main() {
  const infrastructure = await findInfrastructure();
  const namespace = `bench-${process.pid}`;
  const strictBudget = () => runStrictBudgetStage(infrastructure, `${namespace}-strict`, createBenchKey);
  const cacheMix = () => runCacheMixStage(infrastructure, `${namespace}-mix`, createBenchKey);
  const priorities = () => runPriorityStage(infrastructure, `${namespace}-prio`, createBenchKey);
  if (ONLY?.every((letter) => letter === "s" || letter === "z" || letter === "p")) {
    const strict = ONLY.includes("s") ? await strictBudget() : undefined;
    const mix = ONLY.includes("z") ? await cacheMix() : undefined;
    const priority = ONLY.includes("p") ? await priorities() : undefined;
    if (strict) printStrictBudget(strict);
    if (mix) printCacheMix(mix);
    if (priority) printPriority(priority);
    writeReport({
      when: new Date().toISOString(),
      ...(strict && { strict_budget: strict }),
      ...(mix && { cached_mix: mix }),
      ...(priority && { priorities: priority }),
    });
    return;
  }
  const common = {
    REDIS_URL: infrastructure.redisUrl,
    NATS_URL: infrastructure.natsUrl,
    RDA_NAMESPACE: namespace,
    // Their own metrics and internal ports: another stack on this machine may hold the defaults.
    METRICS_PORT: "0",
  };
  const [simPort, proxyPort, gatewayPort, billingHealth, adapterHealth, floorPort, cachedFloorPort] =
    await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const simUrl = `http://127.0.0.1:${simPort}`;
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  const cachedFloorUrl = `http://127.0.0.1:${cachedFloorPort}`;
  process.stdout.write(
    "bench: starting simulator, billing, adapter-posts, gateway, a bare proxy and the floor …\n",
  );
  const floorSubject = `${namespace}.floor.page`;
  const cachedFloorSubject = `${namespace}.floor.cached-page`;
  const children = {
    simulator: startProcess("services/upstream-sim/src/main.ts", {
      SIM_PORT: String(simPort),
      METRICS_PORT: "0",
    }),
    billing: startProcess("services/billing/src/main.ts", {
      ...common,
      HEALTH_PORT: String(billingHealth),
    }),
    adapter: startProcess("services/adapter-posts/src/main.ts", {
      ...common,
      UPSTREAM_URL: simUrl,
      HEALTH_PORT: String(adapterHealth),
      // And the upstream pacer's rate and cap: these stages measure the path, not the budget.
      UPSTREAM_REQUESTS_PER_SECOND: "1000000",
      UPSTREAM_CONCURRENCY: "1000",
    }),
    gateway: startProcess("services/gateway/src/main.ts", {
      ...common,
      PORT: String(gatewayPort),
      GATEWAY_INTERNAL_PORT: "0",
    }),
    proxy: startProcess("bench/bare-proxy.ts", { PORT: String(proxyPort), UPSTREAM_URL: simUrl }),
    floorEdge: startProcess("bench/floor-edge.ts", {
      ...common,
      PORT: String(floorPort),
      FLOOR_SUBJECT: floorSubject,
      FLOOR_ADMIT_SUBJECT: buildSubjects(namespace).billing.admit,
    }),
    floorResponder: startProcess("bench/floor-responder.ts", {
      ...common,
      UPSTREAM_URL: simUrl,
      FLOOR_SUBJECT: floorSubject,
    }),
    cachedFloorEdge: startProcess("bench/floor-edge.ts", {
      ...common,
      PORT: String(cachedFloorPort),
      FLOOR_SUBJECT: cachedFloorSubject,
      FLOOR_ADMIT_SUBJECT: buildSubjects(namespace).billing.admit,
    }),
    cachedFloorResponder: startProcess("bench/floor-responder.ts", {
      ...common,
      UPSTREAM_URL: simUrl,
      FLOOR_SUBJECT: cachedFloorSubject,
      FLOOR_FROM_MEMORY: "1",
    }),
  };
  try {
    for (const url of [
      `${simUrl}/api/subreddits/search?limit=1`,
      `http://127.0.0.1:${billingHealth}/readyz`,
      `http://127.0.0.1:${adapterHealth}/readyz`,
      `${gatewayUrl}/readyz`,
      `${proxyUrl}/api/subreddits/search?limit=1`,
      // 502 until the responder has subscribed, then the simulator's answer.
      `${floorUrl}/api/subreddits/search?limit=1`,
      `${cachedFloorUrl}/api/subreddits/search?limit=1`,
    ]) {
      // Generous: on a loaded machine a dozen processes take long to start.
      await waitForHttp(url, 600_000);
    }
    const key = await createBenchKey(infrastructure.natsUrl, namespace);
    const headers = { "x-api-key": key.key };
    const subreddit = await busiestSubreddit(simUrl);
    const page = `subreddit=${subreddit}&limit=25&sort=desc`;
    const direct = `${simUrl}/api/posts/search?${page}`;
    const check = await (await fetch(`${gatewayUrl}/v1/posts?${page}`, { headers })).json();
    // The adapter asks the upstream for the same 25-row page; it may hand back fewer rows (it keeps
    // the cursor same-second-safe), so only check that the gateway path serves data at all.
    if (!Array.isArray((check as { data?: unknown[] }).data))
      throw new Error(`the gateway does not serve the bench page: ${JSON.stringify(check).slice(0, 300)}`);

    const watch = (...names: (keyof typeof children)[]) => names.map((name) => watched(name, children[name]));
    const servers = serverProcesses(infrastructure.redisUrl, infrastructure.natsUrl);
    const gatewayPath = [...watch("gateway", "billing", "adapter", "simulator"), ...servers];
    const floorPath = [
      ...watch("floorEdge", "floorResponder", "simulator"),
      ...servers.filter((server) => server.name === "nats"),
    ];
    const cachedFloorPath = [
      ...watch("cachedFloorEdge", "cachedFloorResponder"),
      ...servers.filter((server) => server.name === "nats"),
    ];

    const stages: Record<string, Stage> = {
      a_simulator_direct: { label: "(a) simulator direct", url: direct, watched: watch("simulator") },
      b_bare_proxy: {
        label: "(b) bare fastify proxy",
        url: `${proxyUrl}/api/posts/search?${page}`,
        watched: watch("proxy", "simulator"),
      },
      c1_gateway_cached: {
        label: "(c1) whole gateway path, a cache hit",
        url: `${gatewayUrl}/v1/posts?${page}`,
        headers,
        watched: gatewayPath,
      },
      c2_gateway_fetched: {
        label: "(c2) whole gateway path, fetched anew (Cache-Control: no-cache)",
        url: `${gatewayUrl}/v1/posts?${page}`,
        headers: { ...headers, "cache-control": "no-cache" },
        watched: gatewayPath,
      },
      d_account: {
        label: "(d) /v1/account",
        url: `${gatewayUrl}/v1/account`,
        headers,
        watched: [...watch("gateway", "billing"), ...servers],
      },
      e_floor: {
        label: "(e) the shape's floor: fastify, one NATS request, an undici responder",
        url: `${floorUrl}/api/posts/search?${page}`,
        watched: floorPath,
      },
      e2_floor_cached: {
        label: "(e2) the cached floor: fastify, one NATS request, a responder answering from memory",
        url: `${cachedFloorUrl}/api/posts/search?${page}`,
        watched: cachedFloorPath,
      },
      f_floor_with_admission: {
        label: "(f) the floor with one admission round trip before each request",
        url: `${floorUrl}/api/posts/search?${page}`,
        headers: { "x-floor-key-id": key.id },
        watched: [...floorPath, ...watch("billing"), ...servers.filter((server) => server.name === "redis")],
      },
      moderate_a_simulator_direct: {
        label: `(a) at ${MODERATE_RATE} req/s`,
        url: direct,
        rate: MODERATE_RATE,
        watched: watch("simulator"),
      },
      moderate_c_gateway: {
        label: `(c1) at ${MODERATE_RATE} req/s`,
        url: `${gatewayUrl}/v1/posts?${page}`,
        headers,
        rate: MODERATE_RATE,
        watched: gatewayPath,
      },
      moderate_e_floor: {
        label: `(e) at ${MODERATE_RATE} req/s`,
        url: `${floorUrl}/api/posts/search?${page}`,
        rate: MODERATE_RATE,
        watched: floorPath,
      },
    };
    const results: Record<string, Figures> = {};
    for (const [name, stage] of Object.entries(stages)) {
      if (ONLY && !ONLY.includes(name[0]!)) continue;
      results[name] = await measure(stage);
    }
    let admissions: AdmissionFigures | undefined;
    if (!ONLY || ONLY.includes("g")) {
      process.stdout.write(`bench: (g) billing's admissions, ${ADMISSION_CONCURRENCY} in flight …\n`);
      admissions = await measureAdmissions({
        natsUrl: infrastructure.natsUrl,
        namespace,
        keyId: key.id,
        admissions: ADMISSIONS,
        concurrency: ADMISSION_CONCURRENCY,
        watched: [...watch("billing"), ...servers],
      });
      process.stdout.write(
        `bench: (g) billing admits ${admissions.admissions_per_second} requests/s (${admissions.failed} failed; ${admissions.cpu_ms_per_admission_total} CPU ms each)\n`,
      );
    }
    let variants: VariantMixFigures | undefined;
    if (!ONLY || ONLY.includes("v")) {
      process.stdout.write("bench: (v) every variant of settled windows …\n");
      variants = await runVariantMix({ gatewayUrl, simUrl, headers });
      process.stdout.write(
        `bench: (v) ${variants.answers} answers from ${variants.upstream_calls} upstream calls: ${variants.answers_per_upstream_call} per call; the physical limit (one call per window) ${variants.physical_limit_answers_per_call}\n`,
      );
    }
    const loopbackMicros = await loopbackRoundTripMicros();
    let strict: StrictBudgetFigures | undefined;
    if (!ONLY || ONLY.includes("s")) strict = await strictBudget();
    let mix: CacheMixFigures | undefined;
    if (!ONLY || ONLY.includes("z")) mix = await cacheMix();
    let priority: PriorityFigures | undefined;
    if (!ONLY || ONLY.includes("p")) priority = await priorities();
    const report = {
      when: new Date().toISOString(),
      // Other work on the machine skews the throughput and latency figures; the load average says how much.
      machine: {
        cpus: cpus().length,
        node: process.version,
        load_average_1m_5m_15m: loadavg(),
        loopback_round_trip_p50_us: loopbackMicros,
      },
      settings: {
        duration_s: DURATION_S,
        connections: CONNECTIONS,
        moderate_rate: MODERATE_RATE,
        runs: RUNS,
        page,
      },
      results,
      ...(admissions && { g_billing_admissions: admissions }),
      ...(variants && { v_variant_mix: variants }),
      ratios: ratiosOf(results),
      ...(strict && { strict_budget: strict }),
      ...(mix && { cached_mix: mix }),
      ...(priority && { priorities: priority }),
    };
    printTables(report.results, report.ratios);
    if (strict) printStrictBudget(strict);
    if (mix) printCacheMix(mix);
    if (priority) printPriority(priority);
    process.stdout.write(`bench: load average during the run: ${loadavg().map(round).join(" ")}\n`);
    process.stdout.write(
      `bench: a loopback round trip to another process takes ${loopbackMicros} µs at p50 here (see bench/loopback.ts)\n`,
    );
    writeReport(report);
  } finally {
    await stopAll(Object.values(children));
  }
}

function writeReport(report: object): void {
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(new URL("./results/latest.json", import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write("bench: wrote bench/results/latest.json\n");
}

function printStrictBudget(strict: StrictBudgetFigures): void {
  process.stdout.write(
    `bench: (s) strict budget: ${strict.customers} customers, ${strict.duration_s} s; upstream ${strict.upstream_requests_per_second} req/s\n`,
  );
  console.table(strict.customer_answers_by_status);
  console.table(strict.simulator_budget);
}

function printCacheMix(mix: CacheMixFigures): void {
  const { overall, history_pages_vs_upstream_calls: history } = mix;
  process.stdout.write(
    `bench: (z) cached mix: ${overall.answers} answers from ${overall.upstream_calls} upstream calls (${overall.answers_per_upstream_call} per call; done when >= 4); history ${history.pages} pages, ${history.upstream_calls} upstream calls (done when equal); ${mix.ages_over_bound} answers over their bound\n`,
  );
  console.table(mix.parts);
  console.table(mix.latency_ms);
  console.table(mix.oldest_answer_s);
  console.table(mix.cpu_ms_per_hit);
}

function printPriority(priority: PriorityFigures): void {
  process.stdout.write(
    `bench: (p) interactive p50 ${priority.interactive_alone_ms.p50} ms alone, ${priority.interactive_with_exports_ms.p50} ms under exports (${priority.p50_rise_percent} %; done when <= 10 %); exports answered ${priority.exports.answers}\n`,
  );
  console.table({ alone: priority.interactive_alone_ms, with_exports: priority.interactive_with_exports_ms });
  console.table(priority.upstream_requests_per_second);
}

/** Throughput ratios and the added latency, for the stages that ran. */
function ratiosOf(results: Record<string, Figures>): Record<string, number> {
  const { a_simulator_direct: a, b_bare_proxy: b, c1_gateway_cached: c, e_floor: e } = results;
  const { c2_gateway_fetched: c2, e2_floor_cached: e2 } = results;
  const f = results.f_floor_with_admission;
  const moderateA = results.moderate_a_simulator_direct;
  const moderateC = results.moderate_c_gateway;
  return {
    ...(a && c && { c_over_a_throughput: round(c.requests_per_second / a.requests_per_second) }),
    ...(b && c && { c_over_b_throughput: round(c.requests_per_second / b.requests_per_second) }),
    ...(a && e && { e_over_a_throughput: round(e.requests_per_second / a.requests_per_second) }),
    // Like with like: a cache hit against the cached floor, a fetch against the fetching floor.
    ...(c && e2 && { c1_over_e2_throughput: round(c.requests_per_second / e2.requests_per_second) }),
    ...(c2 && e && { c2_over_e_throughput: round(c2.requests_per_second / e.requests_per_second) }),
    ...(c && c2 && { c1_over_c2_throughput: round(c.requests_per_second / c2.requests_per_second) }),
    ...(c && { c1_cpu_ms_per_request: c.cpu_ms_per_request_total }),
    ...(c2 && { c2_cpu_ms_per_request: c2.cpu_ms_per_request_total }),
    ...(e2 && { e2_cpu_ms_per_request: e2.cpu_ms_per_request_total }),
    ...(c &&
      e2 && {
        c1_cpu_ms_over_cached_floor: round3(c.cpu_ms_per_request_total - e2.cpu_ms_per_request_total),
      }),
    ...(c2 &&
      e && { c2_cpu_ms_over_floor: round3(c2.cpu_ms_per_request_total - e.cpu_ms_per_request_total) }),
    ...(a && f && { f_over_a_throughput: round(f.requests_per_second / a.requests_per_second) }),
    ...(moderateA && moderateC && { moderate_added_p50_ms: round(moderateC.p50_ms - moderateA.p50_ms) }),
    ...(moderateA &&
      results.moderate_e_floor && {
        moderate_floor_added_p50_ms: round(results.moderate_e_floor.p50_ms - moderateA.p50_ms),
      }),
    ...(e && { e_cpu_ms_per_request: e.cpu_ms_per_request_total }),
    ...(f && { f_cpu_ms_per_request: f.cpu_ms_per_request_total }),
    // What the admission round trip alone costs, and what the rest of the product's work costs.
    ...(e && f && { f_cpu_ms_over_floor: round3(f.cpu_ms_per_request_total - e.cpu_ms_per_request_total) }),
  };
}

function watched(name: string, child: ChildProcess): WatchedProcess {
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  return { name, pid: child.pid };
}

/** The shared Redis and NATS serve the gateway path too; their CPU counts when they run on this machine. */
function serverProcesses(redisUrl: string, natsUrl: string): WatchedProcess[] {
  const found: WatchedProcess[] = [];
  for (const [name, url] of [
    ["redis", redisUrl],
    ["nats", natsUrl.split(",")[0]!],
  ] as const) {
    const { hostname, port } = new URL(url);
    const pid =
      hostname === "127.0.0.1" || hostname === "localhost" ? pidListeningOn(Number(port)) : undefined;
    if (pid === undefined)
      process.stdout.write(`bench: ${name} is not a local process; its CPU is not counted\n`);
    else found.push({ name, pid });
  }
  return found;
}

async function createBenchKey(natsUrl: string, namespace: string): Promise<{ id: string; key: string }> {
  const logger = createLogger("bench", { level: "warn" });
  const nats = await connectNats(natsUrl, "bench", logger);
  const request = { credits: 100_000_000, rate_limit: { qps: 100_000, burst: 1_000_000 }, label: "bench" };
  const subjects = buildSubjects(namespace);
  const reply = await requestJson(nats, subjects.billing.createKey, request, createKeyReplySchema, 5_000);
  await nats.close();
  if (!reply.ok) throw new Error(`cannot create the bench key: ${reply.error.message}`);
  if (reply.value.outcome !== "created") throw new Error("the bench key was refused");
  return { id: reply.value.id, key: reply.value.key };
}

async function busiestSubreddit(simUrl: string): Promise<string> {
  const response = await fetch(`${simUrl}/api/subreddits/search?limit=1&sort=desc&sort_type=subscribers`);
  const body = (await response.json()) as { data: { display_name: string }[] };
  const name = body.data[0]?.display_name;
  if (!name) throw new Error("the simulator lists no subreddit");
  return name;
}

const round = (value: number) => Math.round(value * 100) / 100;
const round3 = (value: number) => Math.round(value * 1000) / 1000;

function printTables(results: Record<string, Figures>, ratios: Record<string, number>): void {
  console.table(
    Object.entries(results).map(([name, f]) => ({
      run: name,
      "req/s": f.requests_per_second,
      "p50 ms": f.p50_ms,
      "p99 ms": f.p99_ms,
      "non-2xx": f.non2xx,
      "CPU ms/req": f.cpu_ms_per_request_total,
    })),
  );
  console.table(Object.fromEntries(Object.entries(results).map(([name, f]) => [name, f.cpu_ms_per_request])));
  console.table(ratios);
}

await main();
