/**
 * `pnpm tsx bench/adapter-direct.ts [CHECKOUT] [REQUESTS]`: adapter-posts alone, asked over NATS
 * directly (20 requests in flight) for the same 25-post page as `pnpm bench`, with the CPU each
 * process spent per request. Set beside the whole path's figure, it separates what the adapter's
 * code costs from what waking it up for each request costs. CHECKOUT (default: this one) is a
 * directory holding another checkout of the repository, with its dependencies installed, to compare
 * versions on the same machine.
 */
import { fileURLToPath } from "node:url";
import { connectNats, createLogger } from "@rda/service-kit";
import { pidListeningOn, startCpuWindow } from "./cpu.ts";
import { freePort, startProcess, stopAll, waitForHttp } from "./processes.ts";

const CHECKOUT = process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url));
const REQUESTS = Number(process.argv[3] ?? 8_000);
const IN_FLIGHT = 20;
const WARM_UP = 2_000;

const namespace = `bench-direct-${process.pid}`;
const [simPort, healthPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
const simUrl = `http://127.0.0.1:${simPort}`;
const simulator = startProcess("services/upstream-sim/src/main.ts", { SIM_PORT: String(simPort) }, CHECKOUT);
const adapter = startProcess(
  "services/adapter-posts/src/main.ts",
  {
    NATS_URL: "nats://127.0.0.1:4222",
    RDA_NAMESPACE: namespace,
    UPSTREAM_URL: simUrl,
    HEALTH_PORT: String(healthPort),
    METRICS_PORT: String(metricsPort),
  },
  CHECKOUT,
);
try {
  await waitForHttp(`${simUrl}/api/subreddits/search?limit=1`, 60_000);
  await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 60_000);
  const busiest = await fetch(`${simUrl}/api/subreddits/search?limit=1&sort=desc&sort_type=subscribers`);
  const subreddit = ((await busiest.json()) as { data: { display_name: string }[] }).data[0]!.display_name;
  const nats = await connectNats("nats://127.0.0.1:4222", "bench", createLogger("bench", { level: "warn" }));
  const subject = `${namespace}.adapter.posts.list`;
  const ask = (index: number) =>
    nats.request(
      subject,
      JSON.stringify({
        request_id: `direct-${index}`.padEnd(12, "0"),
        params: { subreddit, limit: 25, sort: "desc" },
      }),
      { timeout: 5_000 },
    );
  for (let index = 0; index < WARM_UP; index++) await ask(index);

  const watched = [
    { name: "adapter", pid: adapter.pid! },
    { name: "nats", pid: pidListeningOn(4222)! },
    { name: "simulator", pid: simulator.pid! },
  ].filter((process) => process.pid !== undefined);
  const stop = startCpuWindow(watched);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < REQUESTS) await ask(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const perRequest = Object.entries(stop()).map(
    ([name, ms]) => `${name} ${((ms * 1000) / REQUESTS).toFixed(0)}`,
  );
  process.stdout.write(
    `${CHECKOUT}: ${Math.round(REQUESTS / seconds)} req/s; CPU µs per request: ${perRequest.join(", ")}\n`,
  );
  await nats.close();
} finally {
  await stopAll([simulator, adapter]);
}
