/**
 * Stage (s): the product against the simulator's strict profile (the upstream's real budget: a
 * window per minute, two in flight, heavy queries slow), with the product's own budget defaults.
 * Several customers ask far more than the budget holds, for a short while; the stage reports what
 * they got, by status, and how many requests a second reached the upstream, with the simulator's
 * own budget counters (429s it had to send, busy refusals, the most in flight).
 */
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";

const DURATION_S = Number(process.env.BENCH_STRICT_DURATION_S ?? 15);
const CUSTOMERS = Number(process.env.BENCH_STRICT_CUSTOMERS ?? 8);

export interface StrictBudgetFigures {
  duration_s: number;
  customers: number;
  customer_answers_by_status: Record<string, number>;
  upstream_requests_per_second: number;
  simulator_budget: Record<string, number>;
}

interface Infrastructure {
  readonly redisUrl: string;
  readonly natsUrl: string;
}

export async function runStrictBudgetStage(
  infrastructure: Infrastructure,
  namespace: string,
  createKey: (natsUrl: string, namespace: string) => Promise<{ key: string }>,
): Promise<StrictBudgetFigures> {
  process.stdout.write(`bench: (s) strict upstream budget, ${CUSTOMERS} customers for ${DURATION_S} s …\n`);
  const common = {
    REDIS_URL: infrastructure.redisUrl,
    NATS_URL: infrastructure.natsUrl,
    RDA_NAMESPACE: namespace,
  };
  const [simPort, gatewayPort, billingHealth, adapterHealth, internalPort] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  // Every budget setting is the product's default: that is what is measured.
  const children = [
    startProcess("services/upstream-sim/src/main.ts", { SIM_PORT: String(simPort), SIM_PROFILE: "strict" }),
    startProcess("services/billing/src/main.ts", { ...common, HEALTH_PORT: String(billingHealth) }),
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
  try {
    for (const url of [
      `${simUrl}/__sim/health`,
      `http://127.0.0.1:${billingHealth}/readyz`,
      `http://127.0.0.1:${adapterHealth}/readyz`,
      `${gatewayUrl}/readyz`,
    ])
      await waitForHttp(url, 60_000);
    const { subreddits, authors } = await sampleNames(simUrl);
    await fetch(`${simUrl}/__sim/stats`, { method: "DELETE" });
    const keys = await Promise.all(
      Array.from({ length: CUSTOMERS }, () => createKey(infrastructure.natsUrl, namespace)),
    );
    const answers: Record<string, number> = {};
    let sequence = 0;
    const started = Date.now();
    const stopAt = started + DURATION_S * 1000;
    await Promise.all(
      keys.map(async ({ key }) => {
        while (Date.now() < stopAt) {
          sequence += 1;
          // Listings of a community (light) and scans of one author (heavy upstream), never the same page twice.
          const query =
            sequence % 2 === 0
              ? `subreddit=${subreddits[sequence % subreddits.length]}&limit=${1 + (sequence % 100)}`
              : `author=${authors[sequence % authors.length]}&limit=${1 + (sequence % 100)}`;
          const status = await fetch(`${gatewayUrl}/v1/posts?${query}`, { headers: { "x-api-key": key } })
            .then(async (response) => {
              await response.arrayBuffer();
              return String(response.status);
            })
            .catch(() => "error");
          answers[status] = (answers[status] ?? 0) + 1;
          // A client told to wait comes back a little later, as a polite one would.
          if (status === "429") await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const stats = (await (await fetch(`${simUrl}/__sim/stats`)).json()) as {
      total: number;
      budget: Record<string, number>;
    };
    return {
      duration_s: Math.round(seconds * 10) / 10,
      customers: CUSTOMERS,
      customer_answers_by_status: answers,
      upstream_requests_per_second: Math.round((stats.total / seconds) * 100) / 100,
      simulator_budget: stats.budget,
    };
  } finally {
    await stopAll(children);
  }
}

/** Two direct requests (inside the simulator's window): community names and authors to ask about. */
async function sampleNames(simUrl: string): Promise<{ subreddits: string[]; authors: string[] }> {
  const communities = (await (
    await fetch(`${simUrl}/api/subreddits/search?limit=20&sort=desc&sort_type=subscribers`)
  ).json()) as { data: { display_name: string }[] };
  const subreddits = communities.data.map((community) => community.display_name);
  const page = (await (
    await fetch(`${simUrl}/api/posts/search?subreddit=${subreddits[0]}&limit=50&sort=desc`)
  ).json()) as { data: { author: string }[] };
  const authors = [...new Set(page.data.map((post) => post.author).filter((name) => !name.startsWith("[")))];
  if (subreddits.length === 0 || authors.length === 0)
    throw new Error("the simulator gave no names to ask about");
  return { subreddits, authors };
}
