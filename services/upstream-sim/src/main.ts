/**
 * Process shell: read and check the environment, generate the corpus, listen,
 * and close cleanly on SIGTERM/SIGINT. A bad variable stops the start naming it.
 */
import { createLogger, loadConfig, onShutdown, runMain, startObservability } from "@rda/service-kit";
import { buildSimApp } from "./app.ts";
import { budgetQuirksOf } from "./budget/budget-quirks.ts";
import { simConfigShape } from "./config.ts";
import { generateCorpus } from "./corpus/corpus.ts";
import { quirksFromEnv } from "./profile.ts";
import { corpusSummary } from "./routes/sim-control.ts";

runMain("upstream-sim", async () => {
  const config = loadConfig(simConfigShape);
  const observability = await startObservability("upstream-sim", import.meta.url, config);
  const logger = createLogger("upstream-sim", { level: config.LOG_LEVEL });
  const corpus = generateCorpus({
    seed: config.SIM_SEED,
    anchor: config.SIM_ANCHOR,
    scale: config.SIM_SCALE,
  });
  const quirks = quirksFromEnv(config);
  const budget = budgetQuirksOf(config.SIM_PROFILE, config);
  const app = buildSimApp({ corpus, latencyMs: config.SIM_LATENCY_MS, logger, quirks, budget });
  const url = await app.listen({ port: config.SIM_PORT, host: config.SIM_HOST });
  logger.info(
    {
      url,
      latency_ms: config.SIM_LATENCY_MS,
      profile: config.SIM_PROFILE,
      quirks,
      budget,
      ...corpusSummary({ corpus }),
    },
    "upstream simulator listening",
  );
  const metrics = await observability.serveMetrics();
  onShutdown(logger, [
    ["http server", () => app.close()],
    ["metrics server", () => metrics.close()],
  ]);
});
