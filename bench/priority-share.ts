/**
 * Stage (p): interactive latency while background work saturates the upstream budget. Against the
 * simulator's strict profile, one customer asks for fresh pages (`Cache-Control: no-cache`, so every
 * answer is an upstream call) about once a second, first alone, then while exports (adapter requests
 * with `priority: "exports"` sent straight to the adapter over NATS, as the exports worker sends them)
 * ask for page after page as fast as they are answered. Reported: the customer's p50 and p99 in both
 * runs and the rise of p50 (done when at most 10 %), and what the exports got in the meantime.
 */
import { ADAPTER_PROGRESS, buildSubjects, OPERATIONS, parseHttpParams } from "@rda/contracts";
import { connectNats, createLogger, requestWithProgress } from "@rda/service-kit";
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";

const PHASE_S = Number(process.env.BENCH_PRIORITY_PHASE_S ?? 25);
const EXPORT_LOOPS = Number(process.env.BENCH_PRIORITY_EXPORTS ?? 4);

export interface PriorityFigures {
  phase_s: number;
  interactive_alone_ms: { p50: number; p99: number; answers: number };
  interactive_with_exports_ms: { p50: number; p99: number; answers: number };
  p50_rise_percent: number;
  exports: { answers: number; refused: number; per_second: number };
  upstream_requests_per_second: { alone: number; with_exports: number };
}

interface Infrastructure {
  readonly redisUrl: string;
  readonly natsUrl: string;
}

export async function runPriorityStage(
  infrastructure: Infrastructure,
  namespace: string,
  createKey: (natsUrl: string, namespace: string) => Promise<{ key: string }>,
): Promise<PriorityFigures> {
  process.stdout.write(
    `bench: (p) interactive latency under ${EXPORT_LOOPS} export loops, ${PHASE_S} s alone and ${PHASE_S} s with them …\n`,
  );
  const common = {
    REDIS_URL: infrastructure.redisUrl,
    NATS_URL: infrastructure.natsUrl,
    RDA_NAMESPACE: namespace,
    METRICS_PORT: "0",
  };
  const [simPort, gatewayPort, billingHealth, adapterHealth, internalPort] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const children = [
    startProcess("services/upstream-sim/src/main.ts", {
      SIM_PORT: String(simPort),
      SIM_PROFILE: "strict",
      METRICS_PORT: "0",
    }),
    startProcess("services/billing/src/main.ts", {
      ...common,
      HEALTH_PORT: String(billingHealth),
    }),
    startProcess("services/adapter-posts/src/main.ts", {
      ...common,
      UPSTREAM_URL: simUrl,
      HEALTH_PORT: String(adapterHealth),
    }),
    startProcess("services/gateway/src/main.ts", {
      ...common,
      PORT: String(gatewayPort),
      GATEWAY_INTERNAL_PORT: String(internalPort),
    }),
  ];
  const nats = await connectNats(
    infrastructure.natsUrl,
    "bench-exports",
    createLogger("bench", { level: "warn" }),
  );
  try {
    for (const url of [
      `${simUrl}/__sim/health`,
      `http://127.0.0.1:${billingHealth}/readyz`,
      `http://127.0.0.1:${adapterHealth}/readyz`,
      `${gatewayUrl}/readyz`,
    ])
      await waitForHttp(url, 60_000);
    const communities = await communityNames(simUrl);
    const { key } = await createKey(infrastructure.natsUrl, namespace);
    let sequence = 0;
    const interactive = async (seconds: number) => {
      const latencies: number[] = [];
      const stopAt = Date.now() + seconds * 1000;
      while (Date.now() < stopAt) {
        sequence += 1;
        const community = communities[sequence % communities.length];
        const started = performance.now();
        const response = await fetch(
          `${gatewayUrl}/v1/posts?subreddit=${community}&limit=${5 + (sequence % 20)}`,
          {
            headers: { "x-api-key": key, "cache-control": "no-cache" },
          },
        );
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      return latencies;
    };
    const upstreamTotal = async () =>
      ((await (await fetch(`${simUrl}/__sim/stats`)).json()) as { total: number }).total;

    const beforeAlone = await upstreamTotal();
    const alone = await interactive(PHASE_S);
    const afterAlone = await upstreamTotal();

    const subject = buildSubjects(namespace).adapter.listPosts;
    const exported = { answers: 0, refused: 0 };
    let exporting = true;
    const exportLoop = async (loop: number) => {
      let page = 0;
      while (exporting) {
        page += 1;
        const community = communities[(loop * 7 + page) % communities.length];
        const params = parseHttpParams(OPERATIONS.listPosts, {
          subreddit: community,
          limit: String(30 + ((loop * 13 + page) % 70)),
        });
        if (!params.ok) throw new Error(params.error);
        const payload = JSON.stringify({
          request_id: `export-${loop}-${page}`,
          params: params.value,
          priority: "exports",
          max_age_s: 0,
        });
        const reply = await requestWithProgress(nats, subject, payload, {
          timeoutMs: 60_000,
          silenceMs: ADAPTER_PROGRESS.silenceMs,
        });
        const ok = reply.ok && new TextDecoder().decode(reply.value).startsWith('{"outcome":"ok"');
        if (ok) exported.answers += 1;
        else {
          exported.refused += 1;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };
    const loops = Array.from({ length: EXPORT_LOOPS }, (_unused, loop) => exportLoop(loop));
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // the exports fill the budget first
    const beforeLoaded = await upstreamTotal();
    const loaded = await interactive(PHASE_S);
    const afterLoaded = await upstreamTotal();
    exporting = false;
    await Promise.all(loops);
    const p50Alone = percentile(alone, 0.5);
    const p50Loaded = percentile(loaded, 0.5);
    return {
      phase_s: PHASE_S,
      interactive_alone_ms: { p50: p50Alone, p99: percentile(alone, 0.99), answers: alone.length },
      interactive_with_exports_ms: { p50: p50Loaded, p99: percentile(loaded, 0.99), answers: loaded.length },
      p50_rise_percent: round(((p50Loaded - p50Alone) / p50Alone) * 100),
      exports: { ...exported, per_second: round(exported.answers / (PHASE_S + 3), 2) },
      upstream_requests_per_second: {
        alone: round((afterAlone - beforeAlone) / PHASE_S, 2),
        with_exports: round((afterLoaded - beforeLoaded) / PHASE_S, 2),
      },
    };
  } finally {
    await nats.close();
    await stopAll(children);
  }
}

async function communityNames(simUrl: string): Promise<string[]> {
  const body = (await (
    await fetch(`${simUrl}/api/subreddits/search?limit=30&sort=desc&sort_type=subscribers`)
  ).json()) as { data: { display_name: string }[] };
  const names = body.data.map((community) => community.display_name);
  if (names.length === 0) throw new Error("the simulator gave no communities");
  return names;
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
