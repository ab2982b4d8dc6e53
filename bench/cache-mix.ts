/**
 * Stage (z): a realistic mixed workload through the whole stack against the simulator's strict
 * profile (the upstream's real budget), with the response cache on and two replicas of the posts
 * adapter. Communities and threads are chosen by a Zipf law:
 *
 * - pollers: many customers polling hot communities for their newest page of posts;
 * - agents: customers reading popular threads (comment trees);
 * - researchers: customers paging old comment history, each page asked once and never again.
 *
 * Each part goes to its own upstream path, so the simulator's per-path counters give the upstream
 * calls of each part. Reported: answers served per upstream call (per part and overall), p50/p99
 * latency of cache hits and misses, the oldest answer of each freshness class against its bound (every
 * `Age` is checked), and the CPU per request of a cache hit in each process on its path.
 */
import { startCpuWindow, type WatchedProcess } from "./cpu.ts";
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";

const DURATION_S = Number(process.env.BENCH_MIX_DURATION_S ?? 30);
const POLLERS = Number(process.env.BENCH_MIX_POLLERS ?? 16);
const AGENTS = Number(process.env.BENCH_MIX_AGENTS ?? 6);
const RESEARCHERS = Number(process.env.BENCH_MIX_RESEARCHERS ?? 3);
/** Seconds: an item older than this is settled (packages/upstream-client/src/cache/freshness.ts). */
const SETTLING_WINDOW_S = 36 * 3600;
const BOUNDS = { fresh: 30, settled: 3600 } as const;
const HIT_SAMPLE = 300;

type Part = "pollers" | "agents" | "researchers";
const PATH_OF_PART: Record<Part, string> = {
  pollers: "/api/posts/search",
  agents: "/api/comments/tree",
  researchers: "/api/comments/search",
};

export interface CacheMixFigures {
  duration_s: number;
  customers: Record<Part, number>;
  answers_by_status: Record<string, number>;
  parts: Record<Part, { answers: number; upstream_calls: number; answers_per_upstream_call: number }>;
  overall: { answers: number; upstream_calls: number; answers_per_upstream_call: number };
  latency_ms: {
    hit_p50: number;
    hit_p99: number;
    miss_p50: number;
    miss_p99: number;
    hits: number;
    misses: number;
  };
  oldest_answer_s: Record<"fresh" | "settled", { oldest: number; bound: number }>;
  ages_over_bound: number;
  answers_without_age: number;
  history_pages_vs_upstream_calls: { pages: number; upstream_calls: number };
  cpu_ms_per_hit: Record<string, number>;
  simulator_budget: Record<string, number>;
}

interface Infrastructure {
  readonly redisUrl: string;
  readonly natsUrl: string;
}

interface Served {
  readonly part: Part;
  readonly status: number;
  readonly ms: number;
  readonly hit: boolean;
  readonly age: number | undefined;
  readonly bound: number;
}

export async function runCacheMixStage(
  infrastructure: Infrastructure,
  namespace: string,
  createKey: (natsUrl: string, namespace: string) => Promise<{ key: string }>,
): Promise<CacheMixFigures> {
  process.stdout.write(
    `bench: (z) cached mix on the strict budget: ${POLLERS} pollers, ${AGENTS} agents, ${RESEARCHERS} researchers for ${DURATION_S} s …\n`,
  );
  // METRICS_PORT 0: several replicas of one service (and other stacks on this machine) side by side.
  const common = {
    REDIS_URL: infrastructure.redisUrl,
    NATS_URL: infrastructure.natsUrl,
    RDA_NAMESPACE: namespace,
    METRICS_PORT: "0",
  };
  const ports = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const [simPort, gatewayPort, billingHealth, postsA, postsB, treeHealth, internalPort] = ports as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const adapter = (script: string, health: number) =>
    startProcess(script, { ...common, UPSTREAM_URL: simUrl, HEALTH_PORT: String(health) });
  const children = {
    simulator: startProcess("services/upstream-sim/src/main.ts", {
      SIM_PORT: String(simPort),
      SIM_PROFILE: "strict",
      METRICS_PORT: "0",
    }),
    // The upstream budget at its default (the adapters' pacer), sized to the upstream's rate: cached
    // answers take no turn in it (docs/upstream.md#cached-answers-and-the-budget), so only misses meet it.
    billing: startProcess("services/billing/src/main.ts", { ...common, HEALTH_PORT: String(billingHealth) }),
    "adapter-posts-a": adapter("services/adapter-posts/src/main.ts", postsA),
    "adapter-posts-b": adapter("services/adapter-posts/src/main.ts", postsB),
    "adapter-tree": adapter("services/adapter-tree/src/main.ts", treeHealth),
    gateway: startProcess("services/gateway/src/main.ts", {
      ...common,
      PORT: String(gatewayPort),
      GATEWAY_INTERNAL_PORT: String(internalPort),
    }),
  };
  try {
    for (const url of [
      `${simUrl}/__sim/health`,
      ...[billingHealth, postsA, postsB, treeHealth].map((port) => `http://127.0.0.1:${port}/readyz`),
      `${gatewayUrl}/readyz`,
    ])
      await waitForHttp(url, 60_000);
    const names = await sampleNames(simUrl);
    const keysFor = (count: number) =>
      Promise.all(Array.from({ length: count }, () => createKey(infrastructure.natsUrl, namespace)));
    const pollerKeys = await keysFor(POLLERS);
    const agentKeys = await keysFor(AGENTS);
    const researcherKeys = await keysFor(RESEARCHERS);
    await fetch(`${simUrl}/__sim/stats`, { method: "DELETE" });
    const served: Served[] = [];
    const statuses: Record<string, number> = {};
    let historyPages = 0;
    const ask = async (part: Part, key: string, path: string, bound: number) => {
      const started = performance.now();
      const startedS = Math.floor(Date.now() / 1000);
      const response = await fetch(`${gatewayUrl}${path}`, { headers: { "x-api-key": key } }).catch(
        () => undefined,
      );
      if (!response) {
        statuses.error = (statuses.error ?? 0) + 1;
        return undefined;
      }
      const body = (await response.json().catch(() => ({}))) as {
        _service?: { cached_at?: number; cursor?: number | null; has_more?: boolean };
      };
      const ms = performance.now() - started;
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      const ageHeader = response.headers.get("age");
      const age = ageHeader === null ? undefined : Number(ageHeader);
      const cachedAt = body._service?.cached_at;
      // A hit was produced upstream before this request began; a miss (or a joined fetch) after.
      const hit = cachedAt !== undefined && cachedAt < startedS;
      served.push({ part, status: response.status, ms, hit, age, bound });
      return response.status === 200 ? body._service : undefined;
    };
    const stopAt = Date.now() + DURATION_S * 1000;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const zipfCommunity = zipf(names.hotCommunities.length, 1.1);
    const zipfThread = zipf(names.threads.length, 1.1);
    const pollers = pollerKeys.map(async ({ key }) => {
      while (Date.now() < stopAt) {
        const community = names.hotCommunities[zipfCommunity()]!;
        // The newest page: its window reaches into the last 36 hours, so its bound is the fresh one.
        await ask("pollers", key, `/v1/posts?subreddit=${community}&limit=25`, BOUNDS.fresh);
        await pause(500);
      }
    });
    const agents = agentKeys.map(async ({ key }) => {
      while (Date.now() < stopAt) {
        const thread = names.threads[zipfThread()]!;
        const bound =
          thread.created_utc > Date.now() / 1000 - SETTLING_WINDOW_S ? BOUNDS.fresh : BOUNDS.settled;
        await ask("agents", key, `/v1/comments/tree?post_id=${thread.id}&limit=50`, bound);
        await pause(1_000);
      }
    });
    // Each researcher pages the history of its own communities, older than 36 hours: never repeated.
    const settledBefore = Math.floor(Date.now() / 1000) - SETTLING_WINDOW_S - 24 * 3600;
    const researchers = researcherKeys.map(async ({ key }, index) => {
      const communities = names.allCommunities.filter((_name, position) => position % RESEARCHERS === index);
      for (const community of communities) {
        let before: number | null | undefined = settledBefore;
        while (Date.now() < stopAt && before) {
          const service = await ask(
            "researchers",
            key,
            `/v1/comments?subreddit=${community}&before=${before}&limit=100`,
            BOUNDS.settled,
          );
          if (service === undefined) {
            await pause(1_000); // refused (429): the same page again later, as a polite client would
            continue;
          }
          historyPages += 1;
          before = service.has_more ? service.cursor : null;
        }
        if (Date.now() >= stopAt) return;
      }
    });
    const started = Date.now();
    await Promise.all([...pollers, ...agents, ...researchers]);
    const seconds = (Date.now() - started) / 1000;
    const stats = (await (await fetch(`${simUrl}/__sim/stats`)).json()) as {
      requests: Record<string, number>;
      total: number;
      budget?: Record<string, number>;
    };
    const cpu = await cpuPerHit(children, gatewayUrl, pollerKeys[0]!.key, names.hotCommunities[0]!);
    return summarise({ served, statuses, stats, seconds, historyPages, cpu });
  } finally {
    await stopAll(Object.values(children));
  }
}

function summarise(input: {
  served: Served[];
  statuses: Record<string, number>;
  stats: { requests: Record<string, number>; total: number; budget?: Record<string, number> };
  seconds: number;
  historyPages: number;
  cpu: Record<string, number>;
}): CacheMixFigures {
  const { served, stats } = input;
  const ok = served.filter((answer) => answer.status === 200);
  const partFigures = Object.fromEntries(
    (Object.keys(PATH_OF_PART) as Part[]).map((part) => {
      const answers = ok.filter((answer) => answer.part === part).length;
      const calls = stats.requests[PATH_OF_PART[part]] ?? 0;
      return [part, { answers, upstream_calls: calls, answers_per_upstream_call: ratio(answers, calls) }];
    }),
  ) as CacheMixFigures["parts"];
  const hits = ok.filter((answer) => answer.hit).map((answer) => answer.ms);
  const misses = ok.filter((answer) => !answer.hit).map((answer) => answer.ms);
  const oldest = (bound: number) =>
    Math.max(0, ...ok.filter((answer) => answer.bound === bound).map((answer) => answer.age ?? 0));
  return {
    duration_s: round(input.seconds),
    customers: { pollers: POLLERS, agents: AGENTS, researchers: RESEARCHERS },
    answers_by_status: input.statuses,
    parts: partFigures,
    overall: {
      answers: ok.length,
      upstream_calls: stats.total,
      answers_per_upstream_call: ratio(ok.length, stats.total),
    },
    latency_ms: {
      hit_p50: percentile(hits, 0.5),
      hit_p99: percentile(hits, 0.99),
      miss_p50: percentile(misses, 0.5),
      miss_p99: percentile(misses, 0.99),
      hits: hits.length,
      misses: misses.length,
    },
    oldest_answer_s: {
      fresh: { oldest: oldest(BOUNDS.fresh), bound: BOUNDS.fresh },
      settled: { oldest: oldest(BOUNDS.settled), bound: BOUNDS.settled },
    },
    ages_over_bound: ok.filter((answer) => answer.age !== undefined && answer.age > answer.bound).length,
    answers_without_age: ok.filter((answer) => answer.age === undefined).length,
    history_pages_vs_upstream_calls: {
      pages: input.historyPages,
      upstream_calls: stats.requests[PATH_OF_PART.researchers] ?? 0,
    },
    cpu_ms_per_hit: input.cpu,
    simulator_budget: stats.budget ?? {},
  };
}

/** CPU ms per request of each process on the path, over a burst of cache hits (one hot page, warm). */
async function cpuPerHit(
  children: Record<string, { pid?: number }>,
  gatewayUrl: string,
  key: string,
  community: string,
): Promise<Record<string, number>> {
  const url = `${gatewayUrl}/v1/posts?subreddit=${community}&limit=25`;
  await fetch(url, { headers: { "x-api-key": key } }).then((response) => response.arrayBuffer());
  const watched: WatchedProcess[] = ["gateway", "billing", "adapter-posts-a", "adapter-posts-b"].flatMap(
    (name) => {
      const pid = children[name]?.pid;
      return pid === undefined ? [] : [{ name, pid }];
    },
  );
  const stop = startCpuWindow(watched);
  for (let sent = 0; sent < HIT_SAMPLE; sent++) {
    await fetch(url, { headers: { "x-api-key": key } }).then((response) => response.arrayBuffer());
  }
  const used = stop();
  const perHit = Object.fromEntries(
    Object.entries(used).map(([name, ms]) => [name, round(ms / HIT_SAMPLE, 3)]),
  );
  const total = Object.values(used).reduce((sum, ms) => sum + ms, 0);
  return { ...perHit, all: round(total / HIT_SAMPLE, 3) };
}

/** Names to ask about, from a few direct requests before the counters are zeroed. */
async function sampleNames(simUrl: string) {
  const communities = (await (
    await fetch(`${simUrl}/api/subreddits/search?limit=40&sort=desc&sort_type=subscribers`)
  ).json()) as { data: { display_name: string }[] };
  const allCommunities = communities.data.map((community) => community.display_name);
  const hotCommunities = allCommunities.slice(0, 8);
  const page = (await (
    await fetch(`${simUrl}/api/posts/search?subreddit=${hotCommunities[0]}&limit=50&sort=desc`)
  ).json()) as { data: { id: string; created_utc: number }[] };
  const threads = page.data
    .slice(0, 20)
    .map((post) => ({ id: post.id, created_utc: Number(post.created_utc) }));
  if (hotCommunities.length === 0 || threads.length === 0)
    throw new Error("the simulator gave no names to ask about");
  return { allCommunities: allCommunities.slice(8), hotCommunities, threads };
}

/** A sampler of ranks 0..n-1 with P(rank k) proportional to 1 / (k + 1)^s. */
function zipf(n: number, s: number): () => number {
  const weights = Array.from({ length: n }, (_unused, rank) => 1 / (rank + 1) ** s);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return () => {
    let left = Math.random() * total;
    for (let rank = 0; rank < n; rank++) {
      left -= weights[rank]!;
      if (left <= 0) return rank;
    }
    return n - 1;
  };
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
}

function ratio(answers: number, calls: number): number {
  return calls === 0 ? answers : round(answers / calls, 2);
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
